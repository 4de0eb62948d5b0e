//! Challenge blocks (docs/challenges.md): `challenge "title" { ... }`, the statements
//! only a challenge takes, and the conditions of `success`, `failure`, `goal` and
//! `points`. Their words are keywords only where they stand, like every word of the
//! language: `zone`, `success` or `score` still name variables and objects elsewhere.

use super::{PResult, Parser, Place};
use crate::ast::{ChallengeStmt, CompareOp, Cond, CondKind, EventCall, EventKind, ScoreSpec, StmtKind};
use crate::error::{ErrorKind, LangError};
use crate::lexer::Tok;

/// The comparison operators an event takes, as written.
const COMPARISONS: [(&str, CompareOp); 5] =
    [("<=", CompareOp::Le), (">=", CompareOp::Ge), ("==", CompareOp::Eq), ("<", CompareOp::Lt), (">", CompareOp::Gt)];

impl Parser<'_, '_> {
    /// The challenge statement starting with `word` (lower case), if it is one here.
    /// Each form is one that would otherwise be a syntax error, so no older scene
    /// changes meaning; `start { ... }` is the start only in a challenge's block (an
    /// object called `start` elsewhere), `box(...)` a shape only in a zone's.
    pub(super) fn challenge_statement(&mut self, word: &str) -> PResult<Option<StmtKind>> {
        let next = self.peek_at(1).clone();
        let opens = matches!(next, Tok::Sym("(" | "{"));
        let item = match word {
            "challenge" if matches!(next, Tok::Str(_)) => return self.challenge().map(Some),
            "time_limit" if !opens => {
                self.advance();
                let seconds = self.expr()?;
                self.expect_sym(";", "after time_limit and its seconds")?;
                ChallengeStmt::TimeLimit(seconds)
            }
            "zone" if matches!(next, Tok::Ident(_)) => {
                self.advance();
                let name = self.name("the zone's name")?;
                let body = self.block_in(Place::Zone, "after the zone's name")?;
                ChallengeStmt::Zone { name, body }
            }
            "start" if self.place == Place::Challenge && next == Tok::Sym("{") => {
                self.advance();
                ChallengeStmt::Start(self.block_in(Place::Scene, "after start")?)
            }
            "heading" if !opens => {
                self.advance();
                let degrees = self.expr()?;
                self.expect_sym(";", "after heading and its degrees")?;
                ChallengeStmt::Heading(degrees)
            }
            "success" | "failure" if self.place == Place::Challenge || !opens => {
                self.advance();
                let cond = self.condition()?;
                self.expect_sym(";", &format!("after the condition of {word}"))?;
                if word == "success" { ChallengeStmt::Success(cond) } else { ChallengeStmt::Failure(cond) }
            }
            "goal" if matches!(next, Tok::Str(_)) => {
                self.advance();
                let name = self.expr()?;
                let cond = self.condition()?;
                self.expect_sym(";", "after the goal's condition")?;
                ChallengeStmt::Goal { name, cond }
            }
            "points" if !opens => {
                self.advance();
                let value = self.expr()?;
                if self.peek_word().as_deref() != Some("when") {
                    return Err(self.expected("'when' after points and their number"));
                }
                self.advance();
                let cond = self.condition()?;
                self.expect_sym(";", "after the condition of points")?;
                ChallengeStmt::Points { value, cond }
            }
            "score" if matches!(next, Tok::Ident(_)) => {
                self.advance();
                let spec = self.score()?;
                self.expect_sym(";", "after score ...")?;
                ChallengeStmt::Score(spec)
            }
            "box" | "cylinder" | "sphere" | "capsule" | "mesh"
                if self.place == Place::Zone && next == Tok::Sym("(") =>
            {
                let spec = self.shape_spec()?;
                self.expect_sym(";", &format!("after {word}(...)"))?;
                return Ok(Some(StmtKind::Shape { custom: false, spec }));
            }
            _ => return Ok(None),
        };
        Ok(Some(StmtKind::ChallengeItem(item)))
    }

    /// `challenge "title" { ... }`, the `challenge` word next.
    fn challenge(&mut self) -> PResult<StmtKind> {
        self.advance();
        let title = self.expr()?;
        let body = self.block_in(Place::Challenge, "after the challenge's title")?;
        Ok(StmtKind::Challenge { title, body })
    }

    /// A block whose statements are read as `place` reads them.
    fn block_in(&mut self, place: Place, context: &str) -> PResult<Vec<crate::ast::Stmt>> {
        let outer = std::mem::replace(&mut self.place, place);
        let body = self.block(context);
        self.place = outer;
        body
    }

    /// `time`, `distance(zone)`, `percent` or `points`, after `score`.
    fn score(&mut self) -> PResult<ScoreSpec> {
        let pos = self.pos();
        let word = self.ident("time, distance(zone), percent or points")?;
        Ok(match word.to_ascii_lowercase().as_str() {
            "time" => ScoreSpec::Time,
            "percent" => ScoreSpec::Percent,
            "points" => ScoreSpec::Points,
            "distance" => {
                let mut args = self.args()?;
                if args.len() != 1 {
                    return Err(LangError::new(
                        pos,
                        ErrorKind::Syntax(format!("distance takes 1 value (a zone), not {}", args.len())),
                    ));
                }
                ScoreSpec::Distance(args.remove(0))
            }
            _ => {
                return Err(LangError::new(
                    pos,
                    ErrorKind::Syntax(format!("unknown score '{word}': use time, distance(zone), percent or points")),
                ));
            }
        })
    }

    // ---- conditions: `then`, `or`, `and`, `not`, loosest first -----------------------

    /// A whole condition.
    pub(super) fn condition(&mut self) -> PResult<Cond> {
        self.deeper()?;
        let cond = self.cond_level(0);
        self.depth -= 1;
        cond
    }

    /// The binary level `level` (0 `then`, 1 `or`, 2 `and`, then `not` and events),
    /// grouping to the left.
    fn cond_level(&mut self, level: usize) -> PResult<Cond> {
        type Combine = fn(Box<Cond>, Box<Cond>) -> CondKind;
        let (words, symbol, combine): (&str, &str, Combine) = match level {
            0 => ("then", "", CondKind::Then),
            1 => ("or", "||", CondKind::Or),
            2 => ("and", "&&", CondKind::And),
            _ => return self.cond_not(),
        };
        let mut left = self.cond_level(level + 1)?;
        let start_depth = self.depth;
        while self.peek_word().as_deref() == Some(words) || (!symbol.is_empty() && self.is_sym(symbol)) {
            self.advance();
            let right = self.deeper().and_then(|()| self.cond_level(level + 1));
            let right = match right {
                Ok(right) => right,
                Err(e) => {
                    self.depth = start_depth;
                    return Err(e);
                }
            };
            let pos = left.pos.clone();
            left = Cond { kind: combine(Box::new(left), Box::new(right)), pos };
        }
        self.depth = start_depth;
        Ok(left)
    }

    fn cond_not(&mut self) -> PResult<Cond> {
        let pos = self.pos();
        if self.peek_word().as_deref() == Some("not") || self.is_sym("!") {
            self.advance();
            self.deeper()?;
            let inner = self.cond_not();
            self.depth -= 1;
            return Ok(Cond { kind: CondKind::Not(Box::new(inner?)), pos });
        }
        self.cond_primary()
    }

    /// `( condition )`, `once( condition )` or an event.
    fn cond_primary(&mut self) -> PResult<Cond> {
        let pos = self.pos();
        if self.eat_sym("(") {
            let inner = self.condition()?;
            self.expect_sym(")", "to close '('")?;
            return Ok(inner);
        }
        let Tok::Ident(word) = self.peek().clone() else {
            return Err(self.expected("a condition (an event such as entered(zone), not, once or '(')"));
        };
        if word.eq_ignore_ascii_case("once") && self.sym_at(1, "(") {
            self.advance();
            self.advance();
            let inner = self.condition()?;
            self.expect_sym(")", "to close once(...)")?;
            return Ok(Cond { kind: CondKind::Once(Box::new(inner)), pos });
        }
        let Some(kind) = EventKind::lookup(&word) else {
            return Err(LangError::new(
                pos,
                ErrorKind::Syntax(format!("unknown event '{word}': the events are {}", EventKind::all_usages())),
            ));
        };
        self.advance();
        if !self.is_sym("(") {
            return Err(self.expected(format!("'(' after {}: {}", kind.name(), kind.usage())));
        }
        let args = self.args()?;
        if args.len() != kind.params().len() {
            return Err(LangError::new(
                pos,
                ErrorKind::Syntax(format!(
                    "{} takes {} value(s), not {}: {}",
                    kind.name(),
                    kind.params().len(),
                    args.len(),
                    kind.usage()
                )),
            ));
        }
        let compare = self.comparison_after_event(kind)?;
        if kind.is_compared() && compare.is_none() {
            return Err(LangError::new(
                pos,
                ErrorKind::Syntax(format!("{} is a number: compare it, as in {}", kind.name(), kind.usage())),
            ));
        }
        Ok(Cond { kind: CondKind::Event(EventCall { kind, args, compare }), pos })
    }

    /// `< number` (and `<= > >= ==`) after `sensor(...)` or `time()`.
    fn comparison_after_event(&mut self, kind: EventKind) -> PResult<Option<(CompareOp, crate::ast::Expr)>> {
        let at = self.pos();
        if self.is_sym("!=") {
            return Err(LangError::new(
                at,
                ErrorKind::Syntax(format!("{} compares with <, <=, >, >= or ==, not !=", kind.name())),
            ));
        }
        let Some(&(_, op)) = COMPARISONS.iter().find(|(symbol, _)| self.is_sym(symbol)) else { return Ok(None) };
        if !kind.is_compared() {
            return Err(LangError::new(
                at,
                ErrorKind::Syntax(format!(
                    "{} is true or false: only sensor(...) and time() are compared with a number",
                    kind.usage()
                )),
            ));
        }
        self.advance();
        Ok(Some((op, self.concat()?)))
    }
}
