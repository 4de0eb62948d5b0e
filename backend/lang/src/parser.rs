//! Tokens → syntax tree, by hand-written recursive descent. Includes are resolved here
//! (through the [`SourceLoader`]) and spliced in place, so a syntax error anywhere, in
//! any included file, stops everything before a single statement runs.

mod challenge;

use std::rc::Rc;
use std::sync::Arc;

use crate::Budgets;
use crate::ast::*;
use crate::catalogue;
use crate::error::{ErrorKind, LangError, Position, Warning};
use crate::lexer::{Tok, Token, lex};
use crate::loader::{SourceLoader, resolve_path};
use crate::model::ProgramRate;

/// What all the files of one program share while they are parsed.
pub(crate) struct ParseSession<'l> {
    pub loader: &'l dyn SourceLoader,
    pub budgets: Budgets,
    /// The include chain, outermost first (for cycle detection and depth).
    pub stack: Vec<String>,
    /// Bytes of source read so far, includes included.
    pub source_bytes: usize,
    /// What parsed but may not mean what it seems (an unparenthesised `a - b - c`).
    pub warnings: Vec<Warning>,
}

impl<'l> ParseSession<'l> {
    /// A session for the file `file`.
    pub fn new(loader: &'l dyn SourceLoader, budgets: Budgets, file: &str) -> ParseSession<'l> {
        ParseSession { loader, budgets, stack: vec![file.to_owned()], source_bytes: 0, warnings: Vec::new() }
    }
}

type PResult<T> = Result<T, LangError>;

/// Parses `source` (the file `file`), resolving its includes.
pub(crate) fn parse_file(
    source: &str,
    file: &str,
    session: &mut ParseSession<'_>,
    top_level: bool,
) -> PResult<Vec<Stmt>> {
    let file: Arc<str> = Arc::from(file);
    session.source_bytes += source.len();
    if session.source_bytes > session.budgets.max_source_bytes {
        return Err(LangError::new(
            Position { file: file.clone(), line: 1, col: 1 },
            ErrorKind::Budget(format!(
                "the scene and its includes are longer than {} bytes",
                session.budgets.max_source_bytes
            )),
        ));
    }
    let tokens = lex(source, &file)?;
    let block_depth = if top_level { 0 } else { 1 };
    let mut parser = Parser { tokens, i: 0, file, session, depth: 0, block_depth, place: Place::Scene };
    let mut stmts = Vec::new();
    while !parser.at_eof() {
        stmts.push(parser.statement()?);
    }
    Ok(stmts)
}

struct Parser<'s, 'l> {
    tokens: Vec<Token>,
    i: usize,
    file: Arc<str>,
    session: &'s mut ParseSession<'l>,
    /// Current nesting of expressions and blocks.
    depth: usize,
    /// Blocks around the current statement (0 = top level of a file included at top level).
    block_depth: usize,
    /// Whose block the current statement is in, for the words only a challenge takes.
    place: Place,
}

/// The blocks whose statements read some words their own way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// Anywhere else.
    Scene,
    /// A challenge's block: `start { ... }` is the start, not an object called start.
    Challenge,
    /// A zone's block: `box(...)` and `cylinder(...)` are its shape.
    Zone,
}

impl Parser<'_, '_> {
    // ---- token helpers -------------------------------------------------------------

    fn peek(&self) -> &Tok {
        &self.tokens[self.i].kind
    }

    fn peek_at(&self, ahead: usize) -> &Tok {
        &self.tokens[(self.i + ahead).min(self.tokens.len() - 1)].kind
    }

    fn at_eof(&self) -> bool {
        matches!(self.peek(), Tok::Eof)
    }

    fn pos(&self) -> Position {
        let t = &self.tokens[self.i];
        Position { file: self.file.clone(), line: t.line, col: t.col }
    }

    /// Just after the previous token: where a missing `;` belongs.
    fn pos_after_previous(&self) -> Position {
        if self.i == 0 {
            return self.pos();
        }
        let t = &self.tokens[self.i - 1];
        Position { file: self.file.clone(), line: t.end_line, col: t.end_col }
    }

    fn advance(&mut self) -> Token {
        let t = self.tokens[self.i].clone();
        if self.i < self.tokens.len() - 1 {
            self.i += 1;
        }
        t
    }

    fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Sym(x) if *x == s)
    }

    fn eat_sym(&mut self, s: &str) -> bool {
        if self.is_sym(s) {
            self.advance();
            true
        } else {
            false
        }
    }

    fn peek_word(&self) -> Option<String> {
        match self.peek() {
            Tok::Ident(w) => Some(w.to_ascii_lowercase()),
            _ => None,
        }
    }

    fn sym_at(&self, ahead: usize, s: &str) -> bool {
        matches!(self.peek_at(ahead), Tok::Sym(x) if *x == s)
    }

    fn expected(&self, expected: impl Into<String>) -> LangError {
        LangError::new(self.pos(), ErrorKind::Expected { expected: expected.into(), found: self.peek().describe() })
    }

    /// Expects `s`; a missing `;` is reported just after the previous token.
    fn expect_sym(&mut self, s: &str, context: &str) -> PResult<()> {
        if self.eat_sym(s) {
            return Ok(());
        }
        let what = if context.is_empty() { format!("'{s}'") } else { format!("'{s}' {context}") };
        let error = self.expected(what);
        if s == ";" {
            return Err(LangError::new(self.pos_after_previous(), error.kind));
        }
        Err(error)
    }

    fn ident(&mut self, what: &str) -> PResult<String> {
        match self.peek().clone() {
            Tok::Ident(name) => {
                self.advance();
                Ok(name)
            }
            _ => Err(self.expected(what.to_owned())),
        }
    }

    fn deeper(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > self.session.budgets.max_nesting {
            return Err(LangError::new(
                self.pos(),
                ErrorKind::Budget(format!(
                    "this is nested too deeply (more than {} levels of blocks, parentheses or operators)",
                    self.session.budgets.max_nesting
                )),
            ));
        }
        Ok(())
    }

    // ---- statements ----------------------------------------------------------------

    fn block(&mut self, context: &str) -> PResult<Vec<Stmt>> {
        self.expect_sym("{", context)?;
        self.deeper()?;
        self.block_depth += 1;
        let mut stmts = Vec::new();
        while !self.is_sym("}") {
            if self.at_eof() {
                return Err(self.expected(format!("'}}' to close the block {context}")));
            }
            stmts.push(self.statement()?);
        }
        self.advance();
        self.block_depth -= 1;
        self.depth -= 1;
        Ok(stmts)
    }

    fn statement(&mut self) -> PResult<Stmt> {
        let pos = self.pos();
        let kind = self.statement_kind()?;
        Ok(Stmt { kind, pos })
    }

    fn statement_kind(&mut self) -> PResult<StmtKind> {
        if self.is_sym("{") {
            return Ok(StmtKind::Block(self.block("")?));
        }
        if self.eat_sym(";") {
            return Ok(StmtKind::Block(vec![]));
        }
        let Tok::Ident(word) = self.peek().clone() else {
            return Err(self.expected("a statement"));
        };
        let lower = word.to_ascii_lowercase();
        let next_is_name = matches!(self.peek_at(1), Tok::Ident(_));
        // `x = ...` / `x : ...` (but `id:[...]` names an object).
        if self.sym_at(1, "=") || (self.sym_at(1, ":") && !(lower == "id" && self.sym_at(2, "["))) {
            self.advance();
            self.advance();
            let value = self.expr()?;
            self.expect_sym(";", &format!("after the assignment to '{word}'"))?;
            return Ok(StmtKind::Assign { name: word, value });
        }
        if let Some(kind) = self.challenge_statement(&lower)? {
            return Ok(kind);
        }
        match lower.as_str() {
            "include" => return self.include(),
            "num" | "string" | "boolean" if next_is_name => return self.declaration(),
            "if" => return self.if_statement(),
            "else" => {
                return Err(LangError::new(self.pos(), ErrorKind::Syntax("'else' without an 'if' before it".into())));
            }
            "for" => return self.for_statement(),
            "function" => return self.function(),
            "return" => {
                self.advance();
                let value = if self.is_sym(";") { None } else { Some(self.expr()?) };
                self.expect_sym(";", "after return")?;
                return Ok(StmtKind::Return(value));
            }
            "call" => {
                let call = self.expr()?;
                self.expect_sym(";", "after the call")?;
                return Ok(StmtKind::Expr(call));
            }
            "print_str" | "print_num" | "print_bool" => {
                self.advance();
                let kind = match lower.as_str() {
                    "print_str" => PrintKind::Str,
                    "print_num" => PrintKind::Num,
                    _ => PrintKind::Bool,
                };
                let value = self.expr()?;
                self.expect_sym(";", &format!("after {lower}"))?;
                return Ok(StmtKind::Print(kind, value));
            }
            "environment" | "env" if next_is_name => {
                self.advance();
                let kind = self.ident("room or wallrect")?;
                let room = match kind.to_ascii_lowercase().as_str() {
                    "room" => true,
                    "wallrect" => false,
                    _ => {
                        return Err(LangError::new(
                            self.pos_after_previous(),
                            ErrorKind::Syntax(format!("unknown environment '{kind}': use room or wallrect")),
                        ));
                    }
                };
                // `environment room;` is the room with every setting at its default.
                let body = if self.eat_sym(";") { vec![] } else { self.block("after environment")? };
                return Ok(StmtKind::Environment { room, body });
            }
            "static" => {
                self.advance();
                return self.object(true);
            }
            "composed" | "container" if next_is_name || self.is_id_at(1) => return self.object(false),
            "robot" if next_is_name || self.is_id_at(1) => {
                self.advance();
                let name = self.name("the robot's name")?;
                let body = self.block("after the robot's name")?;
                return Ok(StmtKind::Robot { name, body });
            }
            "code" if !self.sym_at(1, "{") || matches!(self.peek_at(2), Tok::Str(_)) => {
                self.advance();
                let braced = self.eat_sym("{");
                let file = self.expr()?;
                if braced {
                    self.expect_sym("}", "after the program's file name")?;
                    self.eat_sym(";");
                } else {
                    self.expect_sym(";", "after code \"...\"")?;
                }
                return Ok(StmtKind::Code(file));
            }
            "program_rate" if next_is_name => {
                self.advance();
                let word = self.ident("every_step or control")?;
                let rate = ProgramRate::from_word(&word).ok_or_else(|| {
                    LangError::new(
                        self.pos_after_previous(),
                        ErrorKind::Syntax(format!("unknown program_rate '{word}': use every_step or control")),
                    )
                })?;
                self.expect_sym(";", "after program_rate ...")?;
                return Ok(StmtKind::ProgramRate(rate));
            }
            "urdf" if matches!(self.peek_at(1), Tok::Str(_)) => {
                self.advance();
                let file = self.expr()?;
                let body = if self.is_sym("{") {
                    self.block("after urdf \"...\"")?
                } else {
                    self.expect_sym(";", "after urdf \"...\"")?;
                    vec![]
                };
                return Ok(StmtKind::Urdf { file, body });
            }
            "body" if self.sym_at(1, "{") => {
                self.advance();
                return Ok(StmtKind::RobotBody(self.block("after body")?));
            }
            "shape" | "customgeom" => {
                self.advance();
                let custom = lower == "customgeom";
                if custom && self.peek_word().as_deref() == Some("shape") {
                    self.advance();
                }
                let spec = self.shape_spec()?;
                self.expect_sym(";", &format!("after {lower} {}(...)", shape_name(spec.kind)))?;
                return Ok(StmtKind::Shape { custom, spec });
            }
            _ => {}
        }
        if self.sym_at(1, "(")
            && let Some(prop) = vector_prop(&lower)
        {
            self.advance();
            let args = self.args()?;
            self.expect_sym(";", &format!("after {lower}(...)"))?;
            return Ok(StmtKind::Vector(prop, args));
        }
        if !self.sym_at(1, "{")
            && !self.sym_at(1, "(")
            && let Some(prop) = scalar_prop(&lower)
        {
            self.advance();
            let value = self.expr()?;
            self.expect_sym(";", &format!("after {lower} and its value"))?;
            return Ok(StmtKind::Scalar(prop, value));
        }
        if let Some(kind) = JointType::lookup(&lower)
            && self.sym_at(1, "(")
        {
            return self.joint(kind);
        }
        if let Some(spec) = catalogue::lookup(&lower)
            && (next_is_name || self.is_id_at(1))
        {
            return self.device(spec);
        }
        if self.is_id_at(0) || self.sym_at(1, "{") {
            return self.object(false);
        }
        if self.sym_at(1, "(") {
            let call = self.expr()?;
            self.expect_sym(";", "after the call")?;
            return Ok(StmtKind::Expr(call));
        }
        self.advance();
        Err(self.expected(format!("'=', '{{' or '(' after '{word}'")))
    }

    fn is_id_at(&self, ahead: usize) -> bool {
        matches!(self.peek_at(ahead), Tok::Ident(w) if w.eq_ignore_ascii_case("id"))
            && self.sym_at(ahead + 1, ":")
            && self.sym_at(ahead + 2, "[")
    }

    /// A name: `ident` or `id:[expr]`.
    fn name(&mut self, what: &str) -> PResult<Name> {
        if self.is_id_at(0) {
            self.advance();
            self.advance();
            self.advance();
            let expr = self.expr()?;
            self.expect_sym("]", "to close id:[...]")?;
            return Ok(Name::Dynamic(Box::new(expr)));
        }
        Ok(Name::Literal(self.ident(what)?))
    }

    fn include(&mut self) -> PResult<StmtKind> {
        let pos = self.pos();
        self.advance();
        let Tok::Str(name) = self.peek().clone() else {
            return Err(self.expected("a file name in quotes after include"));
        };
        self.advance();
        self.expect_sym(";", &format!("after include \"{name}\""))?;
        let fail = |kind| Err(LangError::new(pos.clone(), kind));
        let path = match resolve_path(&self.file, &name) {
            Ok(path) => path,
            Err(why) => return fail(ErrorKind::Include(format!("cannot include '{name}': {why}"))),
        };
        if let Some(at) = self.session.stack.iter().position(|f| *f == path) {
            let mut chain = self.session.stack[at..].to_vec();
            chain.push(path);
            return fail(ErrorKind::Include(format!("include cycle: {}", chain.join(" → "))));
        }
        if self.session.stack.len() > self.session.budgets.max_include_depth {
            return fail(ErrorKind::Budget(format!(
                "includes are nested more than {} deep",
                self.session.budgets.max_include_depth
            )));
        }
        let source = match self.session.loader.load(&path) {
            Ok(source) => source,
            Err(e) => return fail(ErrorKind::Include(format!("cannot include '{name}': {e}"))),
        };
        self.session.stack.push(path.clone());
        let stmts = parse_file(&source, &path, self.session, self.block_depth == 0);
        self.session.stack.pop();
        Ok(StmtKind::Included(stmts?))
    }

    fn type_word(&mut self, allow_void: bool) -> PResult<Option<Type>> {
        let what = if allow_void { "a type (void, num, string or boolean)" } else { "a type (num, string or boolean)" };
        let ty = match self.peek_word().as_deref() {
            Some("num") => Some(Type::Num),
            Some("string") => Some(Type::Str),
            Some("boolean") => Some(Type::Bool),
            Some("void") if allow_void => None,
            _ => return Err(self.expected(what)),
        };
        self.advance();
        Ok(ty)
    }

    fn declaration(&mut self) -> PResult<StmtKind> {
        let ty = self.type_word(false)?.expect("not void");
        let name = self.ident("a variable name")?;
        let init = if self.eat_sym("=") || self.eat_sym(":") { Some(self.expr()?) } else { None };
        self.expect_sym(";", &format!("after the declaration of '{name}'"))?;
        Ok(StmtKind::Decl { ty, name, init })
    }

    fn if_statement(&mut self) -> PResult<StmtKind> {
        self.advance();
        self.expect_sym("(", "after if")?;
        let cond = self.expr()?;
        self.expect_sym(")", "after the condition")?;
        self.deeper()?;
        let then = Box::new(self.branch()?);
        let otherwise = if self.peek_word().as_deref() == Some("else") {
            self.advance();
            Some(Box::new(self.branch()?))
        } else {
            None
        };
        self.depth -= 1;
        Ok(StmtKind::If { cond, then, otherwise })
    }

    /// The statement after `if (...)`, `else` or a `for` header: counts as nested.
    fn branch(&mut self) -> PResult<Stmt> {
        self.block_depth += 1;
        let stmt = self.statement();
        self.block_depth -= 1;
        stmt
    }

    fn for_statement(&mut self) -> PResult<StmtKind> {
        self.advance();
        let var = self.ident("the loop variable after for")?;
        if self.peek_word().as_deref() != Some("in") {
            return Err(self.expected(format!("'in' after for {var}")));
        }
        self.advance();
        self.expect_sym("{", "to start the list (for example {0>10} or {1, 2, 7})")?;
        let mut items = Vec::new();
        if !self.is_sym("}") {
            loop {
                let from = self.concat()?;
                let item = if self.is_sym(">") || self.is_sym(">=") {
                    let inclusive = self.is_sym(">=");
                    self.advance();
                    let to = self.concat()?;
                    let step = if self.eat_sym("|") { Some(self.concat()?) } else { None };
                    ListItem::Range { from, to, inclusive, step }
                } else {
                    ListItem::Single(from)
                };
                items.push(item);
                if !self.eat_sym(",") {
                    break;
                }
            }
        }
        self.expect_sym("}", "to close the list")?;
        self.deeper()?;
        let body = Box::new(self.branch()?);
        self.depth -= 1;
        Ok(StmtKind::For { var, items, body })
    }

    fn function(&mut self) -> PResult<StmtKind> {
        let pos = self.pos();
        if self.block_depth > 0 {
            return Err(LangError::new(
                pos,
                ErrorKind::Syntax("functions must be declared at the top level of a file, not inside a block".into()),
            ));
        }
        self.advance();
        let returns = self.type_word(true)?;
        let name = self.ident("the function's name")?;
        if Builtin::lookup(&name).is_some() {
            return Err(LangError::new(
                self.pos_after_previous(),
                ErrorKind::Duplicate(format!("'{name}' is a built-in function: choose another name")),
            ));
        }
        self.expect_sym("(", &format!("after function {name}"))?;
        let mut params = Vec::new();
        if !self.is_sym(")") {
            loop {
                let ty = self.type_word(false)?.expect("not void");
                let param = self.ident("a parameter name")?;
                if params.iter().any(|(_, p)| *p == param) {
                    return Err(LangError::new(
                        self.pos_after_previous(),
                        ErrorKind::Duplicate(format!("the parameter '{param}' is declared twice")),
                    ));
                }
                params.push((ty, param));
                if !self.eat_sym(",") {
                    break;
                }
            }
        }
        self.expect_sym(")", "after the parameters")?;
        let body = self.block(&format!("of function {name}"))?;
        Ok(StmtKind::Function(Rc::new(FunctionDef { name, returns, params, body, pos })))
    }

    fn object(&mut self, is_static: bool) -> PResult<StmtKind> {
        let kind = match self.peek_word().as_deref() {
            Some("composed") if !self.sym_at(1, "{") => ObjectKind::Composed,
            Some("container") if !self.sym_at(1, "{") => ObjectKind::Container,
            _ => ObjectKind::Plain,
        };
        if kind != ObjectKind::Plain {
            self.advance();
        }
        let name = self.name("an object name")?;
        let body = self.block("after the object's name")?;
        Ok(StmtKind::Object { kind, is_static, name, body })
    }

    fn joint(&mut self, kind: JointType) -> PResult<StmtKind> {
        self.advance();
        self.expect_sym("(", &format!("after {}", kind.name()))?;
        let first = (self.pos(), self.name("the first object's name")?);
        self.expect_sym(",", "between the two objects")?;
        let second = (self.pos(), self.name("the second object's name")?);
        let (first, second) = ((first.1, first.0), (second.1, second.0));
        self.expect_sym(")", "after the two objects")?;
        let body = if self.is_sym("{") {
            self.block(&format!("of {}", kind.name()))?
        } else {
            self.expect_sym(";", &format!("or '{{' after {}(...)", kind.name()))?;
            vec![]
        };
        Ok(StmtKind::Joint { kind, first, second, body })
    }

    fn device(&mut self, spec: &'static catalogue::DeviceSpec) -> PResult<StmtKind> {
        self.advance();
        let name = self.name(&format!("a name for the {}", spec.name))?;
        let mut params = Vec::new();
        if self.eat_sym("{") {
            while !self.eat_sym("}") {
                let pos = self.pos();
                let param = self.ident("a parameter name or '}'")?.to_ascii_lowercase();
                let (values, list) = if self.is_sym("(") { (self.args()?, true) } else { (vec![self.expr()?], false) };
                self.expect_sym(";", &format!("after the parameter {param}"))?;
                params.push(Param { name: param, values, list, pos });
            }
            self.eat_sym(";");
        } else {
            self.expect_sym(";", &format!("after {} and its name", spec.name))?;
        }
        Ok(StmtKind::Device { spec, name, params })
    }

    pub(super) fn shape_spec(&mut self) -> PResult<ShapeSpec> {
        let pos = self.pos();
        let kind = match self.peek_word().as_deref() {
            Some("sphere") => ShapeKind::Sphere,
            Some("box") => ShapeKind::Box,
            Some("cylinder") => ShapeKind::Cylinder,
            Some("capsule") => ShapeKind::Capsule,
            Some("mesh") => ShapeKind::Mesh,
            _ => return Err(self.expected("a shape (sphere, box, cylinder, capsule or mesh)")),
        };
        self.advance();
        let args = self.args()?;
        let arity = match kind {
            ShapeKind::Sphere => 1..=1,
            ShapeKind::Box => 3..=3,
            ShapeKind::Cylinder | ShapeKind::Capsule => 2..=2,
            ShapeKind::Mesh => 1..=2,
        };
        if !arity.contains(&args.len()) {
            let usage = match kind {
                ShapeKind::Sphere => "sphere(radius)",
                ShapeKind::Box => "box(width, height, length)",
                ShapeKind::Cylinder => "cylinder(radius, length)",
                ShapeKind::Capsule => "capsule(radius, length)",
                ShapeKind::Mesh => "mesh(\"file\", scale)",
            };
            return Err(LangError::new(
                pos,
                ErrorKind::Syntax(format!("{} takes {} value(s): {usage}", shape_name(kind), arity.end())),
            ));
        }
        Ok(ShapeSpec { kind, args, pos })
    }

    /// `( expr, ... )`
    fn args(&mut self) -> PResult<Vec<Expr>> {
        self.expect_sym("(", "")?;
        let mut args = Vec::new();
        if !self.is_sym(")") {
            loop {
                args.push(self.expr()?);
                if !self.eat_sym(",") {
                    break;
                }
            }
        }
        self.expect_sym(")", "or ',' in the list of values")?;
        Ok(args)
    }

    // ---- expressions ---------------------------------------------------------------

    pub(crate) fn expr(&mut self) -> PResult<Expr> {
        self.deeper()?;
        let e = self.or();
        self.depth -= 1;
        e
    }

    /// A left-associative level: `next (op next)*`, each operator one level deeper.
    fn left_assoc(&mut self, ops: &[(&str, BinOp)], next: fn(&mut Self) -> PResult<Expr>) -> PResult<Expr> {
        let mut left = next(self)?;
        let start_depth = self.depth;
        while let Some(&(_, op)) = ops.iter().find(|(s, _)| self.is_sym(s)) {
            self.advance();
            if let Err(e) = self.deeper() {
                self.depth = start_depth;
                return Err(e);
            }
            let right = next(self);
            let right = match right {
                Ok(r) => r,
                Err(e) => {
                    self.depth = start_depth;
                    return Err(e);
                }
            };
            let pos = left.pos.clone();
            left = Expr { kind: ExprKind::Binary(op, Box::new(left), Box::new(right)), pos };
        }
        self.depth = start_depth;
        Ok(left)
    }

    fn or(&mut self) -> PResult<Expr> {
        self.left_assoc(&[("||", BinOp::Or)], Self::and)
    }

    fn and(&mut self) -> PResult<Expr> {
        self.left_assoc(&[("&&", BinOp::And)], Self::comparison)
    }

    fn comparison(&mut self) -> PResult<Expr> {
        let left = self.concat()?;
        let ops = [
            ("==", BinOp::Eq),
            ("!=", BinOp::Ne),
            ("<=", BinOp::Le),
            (">=", BinOp::Ge),
            ("<", BinOp::Lt),
            (">", BinOp::Gt),
        ];
        let Some(&(_, op)) = ops.iter().find(|(s, _)| self.is_sym(s)) else { return Ok(left) };
        self.advance();
        let right = self.concat()?;
        let pos = left.pos.clone();
        Ok(Expr { kind: ExprKind::Binary(op, Box::new(left), Box::new(right)), pos })
    }

    fn concat(&mut self) -> PResult<Expr> {
        self.left_assoc(&[(".", BinOp::Concat)], Self::additive)
    }

    fn additive(&mut self) -> PResult<Expr> {
        self.right_assoc(&[("+", BinOp::Add), ("-", BinOp::Sub)], BinOp::Sub, Self::multiplicative)
    }

    fn multiplicative(&mut self) -> PResult<Expr> {
        self.right_assoc(&[("*", BinOp::Mul), ("/", BinOp::Div)], BinOp::Div, Self::power)
    }

    /// A right-associative level: `next (op next)*` read as `a op (b op (c ...))`, as
    /// the original VLAB grammar reads `+ -` and `* /`, so its files build what they
    /// always built (`z-larg/2-spess` is `z - (larg/2 - spess)`). Where that differs
    /// from reading left to right (an `order_sensitive` operator that is not the
    /// chain's last), the chain gets a warning that shows the grouping.
    fn right_assoc(
        &mut self,
        ops: &[(&str, BinOp)],
        order_sensitive: BinOp,
        next: fn(&mut Self) -> PResult<Expr>,
    ) -> PResult<Expr> {
        let start = self.i;
        let first = next(self)?;
        let mut chain: Vec<(BinOp, usize, Expr)> = Vec::new();
        let start_depth = self.depth;
        while let Some(&(_, op)) = ops.iter().find(|(s, _)| self.is_sym(s)) {
            let op_token = self.i;
            self.advance();
            let operand = self.deeper().and_then(|()| next(self));
            match operand {
                Ok(operand) => chain.push((op, op_token, operand)),
                Err(e) => {
                    self.depth = start_depth;
                    return Err(e);
                }
            }
        }
        self.depth = start_depth;
        let last = chain.len().saturating_sub(1);
        if chain.iter().take(last).any(|(op, ..)| *op == order_sensitive) {
            let op_tokens: Vec<usize> = chain.iter().map(|(_, at, _)| *at).collect();
            self.warn_grouping(start, &op_tokens);
        }
        let mut operands = chain.into_iter().rev();
        let Some((mut op, _, mut right)) = operands.next() else { return Ok(first) };
        for (left_op, _, left) in operands {
            let pos = left.pos.clone();
            right = Expr { kind: ExprKind::Binary(op, Box::new(left), Box::new(right)), pos };
            op = left_op;
        }
        let pos = first.pos.clone();
        Ok(Expr { kind: ExprKind::Binary(op, Box::new(first), Box::new(right)), pos })
    }

    /// Warns that the chain from token `start` to the previous token, with operators at
    /// `op_tokens`, groups to the right: `a-b-c reads as a-(b-c)`.
    fn warn_grouping(&mut self, start: usize, op_tokens: &[usize]) {
        let written = self.text_of(start, self.i);
        let mut reading = String::new();
        let mut from = start;
        for (k, &op) in op_tokens.iter().enumerate() {
            reading += &self.text_of(from, op);
            reading += &self.text_of(op, op + 1);
            if k + 1 < op_tokens.len() {
                reading.push('(');
            }
            from = op + 1;
        }
        reading += &self.text_of(from, self.i);
        reading += &")".repeat(op_tokens.len() - 1);
        let t = &self.tokens[start];
        let pos = Position { file: self.file.clone(), line: t.line, col: t.col };
        let message = format!(
            "`{written}` reads as `{reading}`: `-` and `/` take everything after them at their level, as in VLAB; add parentheses to say which you mean"
        );
        self.session.warnings.push(Warning { pos, message });
    }

    /// The tokens `from..to` as source text (spaced only where words would merge).
    fn text_of(&self, from: usize, to: usize) -> String {
        let mut text = String::new();
        let mut previous_is_word = false;
        for token in &self.tokens[from..to] {
            let (piece, is_word) = match &token.kind {
                Tok::Num(n) => (format!("{n}"), true),
                Tok::Str(s) => (format!("{s:?}"), false),
                Tok::Ident(s) => (s.clone(), true),
                Tok::Sym(s) => ((*s).to_owned(), false),
                Tok::Eof => (String::new(), false),
            };
            if previous_is_word && is_word {
                text.push(' ');
            }
            text += &piece;
            previous_is_word = is_word;
        }
        text
    }

    /// `unary ('^' power)?`: right-associative, and looser than unary minus
    /// (`-2^2` is 4, as docs/scene-language.md orders them).
    fn power(&mut self) -> PResult<Expr> {
        let base = self.unary()?;
        if !self.eat_sym("^") {
            return Ok(base);
        }
        self.deeper()?;
        let exponent = self.power();
        self.depth -= 1;
        let pos = base.pos.clone();
        Ok(Expr { kind: ExprKind::Binary(BinOp::Pow, Box::new(base), Box::new(exponent?)), pos })
    }

    fn unary(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        let op = if self.eat_sym("-") {
            UnOp::Neg
        } else if self.eat_sym("!") {
            UnOp::Not
        } else {
            return self.primary();
        };
        self.deeper()?;
        let operand = self.unary();
        self.depth -= 1;
        Ok(Expr { kind: ExprKind::Unary(op, Box::new(operand?)), pos })
    }

    fn primary(&mut self) -> PResult<Expr> {
        let pos = self.pos();
        let kind = match self.peek().clone() {
            Tok::Num(n) => {
                self.advance();
                ExprKind::Num(n)
            }
            Tok::Str(s) => {
                self.advance();
                ExprKind::Str(Rc::from(s))
            }
            Tok::Sym("(") => {
                self.advance();
                let inner = self.expr()?;
                self.expect_sym(")", "to close '('")?;
                return Ok(inner);
            }
            Tok::Ident(word) => {
                self.advance();
                let lower = word.to_ascii_lowercase();
                match lower.as_str() {
                    "true" => ExprKind::Bool(true),
                    "false" => ExprKind::Bool(false),
                    "call" => {
                        let pos = self.pos();
                        let name = self.ident("a function name after call")?;
                        if !self.is_sym("(") {
                            return Err(self.expected(format!("'(' after call {name}")));
                        }
                        let args = self.args()?;
                        return Ok(Expr { kind: self.call_kind(name, args, &pos)?, pos });
                    }
                    _ if self.is_sym("(") => {
                        let args = self.args()?;
                        return Ok(Expr { kind: self.call_kind(word, args, &pos)?, pos });
                    }
                    "random" | "rnd" => ExprKind::Builtin(Builtin::Random, vec![]),
                    _ => ExprKind::Var(word),
                }
            }
            _ => return Err(self.expected("a value")),
        };
        Ok(Expr { kind, pos })
    }

    fn call_kind(&self, name: String, args: Vec<Expr>, pos: &Position) -> PResult<ExprKind> {
        match Builtin::lookup(&name) {
            Some((builtin, arity)) => {
                if !arity.contains(&args.len()) {
                    let count = if arity.start() == arity.end() {
                        format!("{}", arity.start())
                    } else {
                        format!("{} to {}", arity.start(), arity.end())
                    };
                    return Err(LangError::new(
                        pos.clone(),
                        ErrorKind::Syntax(format!(
                            "{} takes {count} value(s), not {}",
                            name.to_ascii_lowercase(),
                            args.len()
                        )),
                    ));
                }
                Ok(ExprKind::Builtin(builtin, args))
            }
            None => Ok(ExprKind::Call(name, args)),
        }
    }
}

fn shape_name(kind: ShapeKind) -> &'static str {
    match kind {
        ShapeKind::Sphere => "sphere",
        ShapeKind::Box => "box",
        ShapeKind::Cylinder => "cylinder",
        ShapeKind::Capsule => "capsule",
        ShapeKind::Mesh => "mesh",
    }
}

fn vector_prop(word: &str) -> Option<VectorProp> {
    Some(match word {
        "pos" | "position" => VectorProp::Pos,
        "quaternion" | "quat" => VectorProp::Quaternion,
        "rotation_axis" | "rot_axis" => VectorProp::RotationAxis,
        "anchor" => VectorProp::Anchor,
        "axis" => VectorProp::Axis,
        "axis2" => VectorProp::Axis2,
        _ => return None,
    })
}

fn scalar_prop(word: &str) -> Option<ScalarProp> {
    Some(match word {
        "density" => ScalarProp::Density,
        "material" => ScalarProp::Material,
        "friction" => ScalarProp::Friction,
        "restitution" => ScalarProp::Restitution,
        "width" => ScalarProp::Width,
        "length" | "lenght" => ScalarProp::Length,
        "height" => ScalarProp::Height,
        "sky" => ScalarProp::Sky,
        "ground" => ScalarProp::Ground,
        "walls" => ScalarProp::Walls,
        "ceiling" => ScalarProp::Ceiling,
        "gravity" => ScalarProp::Gravity,
        "erp" => ScalarProp::Erp,
        "cfm" => ScalarProp::Cfm,
        "collide" => ScalarProp::Collide,
        "color" => ScalarProp::Color,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loader::NoFiles;

    fn parse(source: &str) -> Result<Vec<Stmt>, LangError> {
        let mut session = ParseSession::new(&NoFiles, Budgets::default(), "t.vlab");
        parse_file(source, "t.vlab", &mut session, true)
    }

    /// The expression of `num x = <source>;` in prefix form, to check the tree's shape.
    fn tree(source: &str) -> String {
        fn show(e: &Expr) -> String {
            match &e.kind {
                ExprKind::Num(n) => format!("{n}"),
                ExprKind::Str(s) => format!("{s:?}"),
                ExprKind::Bool(b) => format!("{b}"),
                ExprKind::Var(v) => v.clone(),
                ExprKind::Unary(op, x) => format!("({} {})", if *op == UnOp::Neg { "neg" } else { "not" }, show(x)),
                ExprKind::Binary(op, a, b) => format!("({} {} {})", op.symbol(), show(a), show(b)),
                ExprKind::Builtin(b, args) if args.is_empty() => format!("{b:?}"),
                ExprKind::Builtin(_, args) | ExprKind::Call(_, args) => {
                    format!("(call {})", args.iter().map(show).collect::<Vec<_>>().join(" "))
                }
            }
        }
        let stmts = parse(&format!("num x = {source};")).unwrap();
        let StmtKind::Decl { init: Some(e), .. } = &stmts[0].kind else { panic!() };
        show(e)
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(tree("1 + 2 * 3"), "(+ 1 (* 2 3))");
        // `+ -` and `* /` group to the right, as VLAB's grammar reads them.
        assert_eq!(tree("1 - 2 - 3"), "(- 1 (- 2 3))");
        assert_eq!(tree("1 - 2 + 3"), "(- 1 (+ 2 3))");
        assert_eq!(tree("(1 - 2) - 3"), "(- (- 1 2) 3)");
        assert_eq!(tree("8 / 4 / 2"), "(/ 8 (/ 4 2))");
        assert_eq!(tree("z - l / 2 - s"), "(- z (- (/ l 2) s))");
        assert_eq!(tree("2 ^ 3 ^ 2"), "(^ 2 (^ 3 2))");
        assert_eq!(tree("-2 ^ 2"), "(^ (neg 2) 2)");
        assert_eq!(tree("a . b + 1"), "(. a (+ b 1))");
        assert_eq!(tree("a < 1 || b && !c"), "(|| (< a 1) (&& b (not c)))");
    }

    fn grouping_warnings(source: &str) -> Vec<String> {
        let mut session = ParseSession::new(&NoFiles, Budgets::default(), "t.vlab");
        parse_file(source, "t.vlab", &mut session, true).unwrap();
        session.warnings.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn chains_that_group_unlike_left_to_right_say_how_they_read() {
        assert_eq!(
            grouping_warnings("num a = 1;\nnum x = z-larg/2-spess;"),
            [
                "t.vlab:2:9: warning: `z-larg/2-spess` reads as `z-(larg/2-spess)`: `-` and `/` take everything after them at their level, as in VLAB; add parentheses to say which you mean"
            ]
        );
        assert_eq!(
            grouping_warnings("num x = a/b/c;")[0].split(": `-`").next().unwrap(),
            "t.vlab:1:9: warning: `a/b/c` reads as `a/(b/c)`"
        );
        assert!(grouping_warnings("num x = a - b + c - d;")[0].contains("reads as `a-(b+(c-d))`"));
        assert!(grouping_warnings("num x = 2 + z-l-s;")[0].contains("`2+z-l-s` reads as `2+(z-(l-s))`"));
        // One warning per chain, none where both readings agree or parentheses decide.
        assert_eq!(grouping_warnings("num x = a-b-c-d;").len(), 1);
        assert!(
            grouping_warnings("num x = a + b - c; num y = a * b / c; num z = (a - b) - c; num w = a - (b - c);")
                .is_empty()
        );
        assert!(grouping_warnings("num x = -pi/2; num y = y+(h/2)+r-d; num z = z-(r+d);").is_empty());
    }

    #[test]
    fn environment_room_alone_is_the_default_room() {
        let stmts = parse("environment room;").unwrap();
        assert!(matches!(&stmts[0].kind, StmtKind::Environment { room: true, body } if body.is_empty()));
    }

    #[test]
    fn keywords_are_not_reserved() {
        // `compass` names an object, `Compass` declares a sensor, `length` a variable.
        let stmts = parse("compass { shape sphere(1); Compass c; } num length = 2; length = 3;").unwrap();
        assert!(matches!(&stmts[0].kind, StmtKind::Object { name: Name::Literal(n), .. } if n == "compass"));
        assert!(matches!(&stmts[2].kind, StmtKind::Assign { name, .. } if name == "length"));
    }

    #[test]
    fn statements_are_recognised_by_their_shape() {
        let stmts = parse(
            "static composed t { } container c { } id:[\"x\"] { } JointHinge(a, b); Keyboard k; robot r { code \"p\"; body { } }",
        )
        .unwrap();
        let kinds: Vec<&str> = stmts
            .iter()
            .map(|s| match &s.kind {
                StmtKind::Object { kind: ObjectKind::Composed, is_static: true, .. } => "static composed",
                StmtKind::Object { kind: ObjectKind::Container, .. } => "container",
                StmtKind::Object { name: Name::Dynamic(_), .. } => "dynamic object",
                StmtKind::Joint { .. } => "joint",
                StmtKind::Device { .. } => "device",
                StmtKind::Robot { .. } => "robot",
                _ => "other",
            })
            .collect();
        assert_eq!(kinds, ["static composed", "container", "dynamic object", "joint", "device", "robot"]);
    }
}
