//! The Python expressions xacro writes inside `${...}`: numbers, strings and booleans,
//! arithmetic, comparisons, `and`/`or`/`not`, `a if c else b`, the math functions and a
//! few string methods. Parsed into a small tree first, so the branch `a if c else b`
//! does not take is never evaluated (`0 if n == 0 else 1 / n`).

use std::cell::Cell;
use std::fmt;

/// The most nested parentheses, calls and operators an expression may have: deep
/// enough for any robot, shallow enough that a hostile one cannot exhaust the stack.
const MAX_NESTING: usize = 64;

/// A value of an expression or a property.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Value {
    /// Python's int and float alike.
    Num(f64),
    /// A string.
    Str(String),
    /// `True` or `False`.
    Bool(bool),
}

impl Value {
    /// A property's text as xacro reads it: a number if it reads as one, else a string.
    pub fn from_text(text: &str) -> Value {
        match text.trim().parse::<f64>() {
            Ok(n) if !text.trim().is_empty() && !text.trim().eq_ignore_ascii_case("nan") => Value::Num(n),
            _ => Value::Str(text.to_owned()),
        }
    }

    /// Whether it counts as true in `xacro:if`: a boolean, a number other than 0, or
    /// the words `true`/`false` (any case) and `1`/`0`.
    pub fn truth(&self) -> Result<bool, String> {
        match self {
            Value::Bool(b) => Ok(*b),
            Value::Num(n) => Ok(*n != 0.0),
            Value::Str(s) => match s.trim().to_ascii_lowercase().as_str() {
                "true" | "1" => Ok(true),
                "false" | "0" => Ok(false),
                _ => Err(format!("'{s}' is neither true nor false")),
            },
        }
    }

    fn num(&self, what: &str) -> Result<f64, String> {
        match self {
            Value::Num(n) => Ok(*n),
            Value::Bool(b) => Ok(f64::from(u8::from(*b))),
            Value::Str(s) => Err(format!("{what} needs a number, not the string '{s}'")),
        }
    }

    fn python_truth(&self) -> bool {
        match self {
            Value::Bool(b) => *b,
            Value::Num(n) => *n != 0.0,
            Value::Str(s) => !s.is_empty(),
        }
    }
}

impl fmt::Display for Value {
    /// As Python prints it, except that a whole number has no `.0` (so `link${i}` is
    /// `link1` whether `i` came from `1` or `2 / 2`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Num(n) if n.fract() == 0.0 && n.abs() < 1e15 => write!(f, "{}", *n as i64),
            Value::Num(n) => write!(f, "{n}"),
            Value::Str(s) => f.write_str(s),
            Value::Bool(true) => f.write_str("True"),
            Value::Bool(false) => f.write_str("False"),
        }
    }
}

/// What an expression may look up: properties by name.
pub(super) trait Names {
    /// The value of property `name`, if one is in scope.
    fn lookup(&self, name: &str) -> Option<Value>;
}

/// What making strings may cost an expansion: no string longer than `max_string` bytes
/// (a string that doubles would fill memory), and no more than `max_total` bytes of
/// strings made or copied in all (a long value copied by every call of a macro).
#[derive(Debug)]
pub(super) struct Budget {
    /// The longest string.
    pub max_string: usize,
    /// The bytes of every string made or copied, together.
    pub max_total: usize,
    /// The bytes made or copied so far.
    pub spent: Cell<usize>,
}

impl Budget {
    /// Counts `bytes` made or copied.
    pub fn charge(&self, bytes: usize) -> Result<(), String> {
        let spent = self.spent.get().saturating_add(bytes);
        self.spent.set(spent);
        if spent > self.max_total {
            return Err(format!(
                "the expansion made more than {} MiB of values: does a macro copy a long value too often?",
                self.max_total / (1024 * 1024)
            ));
        }
        Ok(())
    }
}

/// Evaluates `text`, with names looked up in `names`, within `budget`.
pub(super) fn eval(text: &str, names: &dyn Names, budget: &Budget) -> Result<Value, String> {
    let tokens = lex(text)?;
    let mut parser = Parser { tokens, at: 0, depth: 0 };
    let expr = parser.expr()?;
    if let Some(token) = parser.tokens.get(parser.at) {
        return Err(format!("unexpected {token} in '{text}'"));
    }
    Evaluator { names, budget }.eval(&expr)
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Num(f64),
    Str(String),
    Name(String),
    Op(&'static str),
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Num(n) => write!(f, "number {n}"),
            Token::Str(s) => write!(f, "string '{s}'"),
            Token::Name(n) => write!(f, "'{n}'"),
            Token::Op(op) => write!(f, "'{op}'"),
        }
    }
}

const OPERATORS: [&str; 22] = [
    "**", "//", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "<", ">", "(", ")", ",", ".", "[", "]", ":", "{", "}",
];

fn lex(text: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() || (c == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit)) {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '.' || chars[i] == '_') {
                let exponent_sign = matches!(chars[i], 'e' | 'E') && matches!(chars.get(i + 1), Some('+' | '-'));
                i += if exponent_sign { 2 } else { 1 };
            }
            let written: String = chars[start..i].iter().filter(|c| **c != '_').collect();
            let n = written.parse::<f64>().map_err(|_| format!("'{written}' is not a number"))?;
            tokens.push(Token::Num(n));
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(Token::Name(chars[start..i].iter().collect()));
        } else if c == '\'' || c == '"' {
            let mut s = String::new();
            i += 1;
            loop {
                match chars.get(i) {
                    None => return Err(format!("a string in '{text}' is never closed: add a {c}")),
                    Some(q) if *q == c => break,
                    Some('\\') if i + 1 < chars.len() => {
                        s.push(match chars[i + 1] {
                            'n' => '\n',
                            't' => '\t',
                            other => other,
                        });
                        i += 2;
                    }
                    Some(other) => {
                        s.push(*other);
                        i += 1;
                    }
                }
            }
            i += 1;
            tokens.push(Token::Str(s));
        } else {
            let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
            let op = OPERATORS
                .iter()
                .find(|op| rest.starts_with(**op))
                .ok_or_else(|| format!("unexpected character '{c}' in '{text}'"))?;
            tokens.push(Token::Op(op));
            i += op.chars().count();
        }
    }
    Ok(tokens)
}

/// An expression's tree.
#[derive(Debug)]
enum Expr {
    Lit(Value),
    Name(String),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Bin(&'static str, Box<Expr>, Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    If { then: Box<Expr>, cond: Box<Expr>, otherwise: Box<Expr> },
    Call(String, Vec<Expr>),
    Method(Box<Expr>, String, Vec<Expr>),
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn eat_op(&mut self, op: &str) -> bool {
        if matches!(self.peek(), Some(Token::Op(o)) if *o == op) {
            self.at += 1;
            return true;
        }
        false
    }

    fn eat_word(&mut self, word: &str) -> bool {
        if matches!(self.peek(), Some(Token::Name(n)) if n == word) {
            self.at += 1;
            return true;
        }
        false
    }

    fn expect_op(&mut self, op: &str) -> Result<(), String> {
        if self.eat_op(op) {
            return Ok(());
        }
        match self.peek() {
            Some(token) => Err(format!("expected '{op}', found {token}")),
            None => Err(format!("expected '{op}', found the end of the expression")),
        }
    }

    fn expr(&mut self) -> Result<Expr, String> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(format!("the expression nests deeper than {MAX_NESTING} levels"));
        }
        let then = self.or()?;
        let result = if self.eat_word("if") {
            let cond = self.or()?;
            if !self.eat_word("else") {
                return Err("'a if condition' needs its 'else b'".into());
            }
            let otherwise = self.expr()?;
            Expr::If { then: Box::new(then), cond: Box::new(cond), otherwise: Box::new(otherwise) }
        } else {
            then
        };
        self.depth -= 1;
        Ok(result)
    }

    fn or(&mut self) -> Result<Expr, String> {
        let mut left = self.and()?;
        while self.eat_word("or") {
            left = Expr::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Expr, String> {
        let mut left = self.not()?;
        while self.eat_word("and") {
            left = Expr::And(Box::new(left), Box::new(self.not()?));
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<Expr, String> {
        if self.eat_word("not") {
            return self.nested(|p| p.not()).map(|e| Expr::Not(Box::new(e)));
        }
        self.comparison()
    }

    fn comparison(&mut self) -> Result<Expr, String> {
        let mut left = self.sum()?;
        for op in ["==", "!=", "<=", ">=", "<", ">"] {
            if self.eat_op(op) {
                left = Expr::Bin(op_name(op), Box::new(left), Box::new(self.sum()?));
                break;
            }
        }
        Ok(left)
    }

    fn sum(&mut self) -> Result<Expr, String> {
        let mut left = self.term()?;
        loop {
            let op = if self.eat_op("+") {
                "+"
            } else if self.eat_op("-") {
                "-"
            } else {
                return Ok(left);
            };
            left = Expr::Bin(op, Box::new(left), Box::new(self.term()?));
        }
    }

    fn term(&mut self) -> Result<Expr, String> {
        let mut left = self.unary()?;
        loop {
            let Some(op) = ["*", "//", "/", "%"].into_iter().find(|op| self.eat_op(op)) else { return Ok(left) };
            left = Expr::Bin(op, Box::new(left), Box::new(self.unary()?));
        }
    }

    fn unary(&mut self) -> Result<Expr, String> {
        if self.eat_op("-") {
            return self.nested(|p| p.unary()).map(|e| Expr::Neg(Box::new(e)));
        }
        if self.eat_op("+") {
            return self.nested(|p| p.unary());
        }
        let base = self.postfix()?;
        if self.eat_op("**") {
            let exponent = self.nested(|p| p.unary())?;
            return Ok(Expr::Bin("**", Box::new(base), Box::new(exponent)));
        }
        Ok(base)
    }

    fn nested(&mut self, inner: impl FnOnce(&mut Parser) -> Result<Expr, String>) -> Result<Expr, String> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(format!("the expression nests deeper than {MAX_NESTING} levels"));
        }
        let result = inner(self);
        self.depth -= 1;
        result
    }

    fn postfix(&mut self) -> Result<Expr, String> {
        let mut expr = self.atom()?;
        while self.eat_op(".") {
            let Some(Token::Name(method)) = self.peek().cloned() else {
                return Err("a '.' is followed by a method's name".into());
            };
            self.at += 1;
            self.expect_op("(")?;
            let args = self.args()?;
            expr = Expr::Method(Box::new(expr), method, args);
        }
        Ok(expr)
    }

    fn args(&mut self) -> Result<Vec<Expr>, String> {
        let mut args = Vec::new();
        if self.eat_op(")") {
            return Ok(args);
        }
        loop {
            args.push(self.expr()?);
            if self.eat_op(")") {
                return Ok(args);
            }
            self.expect_op(",")?;
        }
    }

    fn atom(&mut self) -> Result<Expr, String> {
        let token = self.peek().cloned().ok_or("the expression ends too early")?;
        self.at += 1;
        match token {
            Token::Num(n) => Ok(Expr::Lit(Value::Num(n))),
            Token::Str(s) => Ok(Expr::Lit(Value::Str(s))),
            Token::Op("(") => {
                let inner = self.expr()?;
                self.expect_op(")")?;
                Ok(inner)
            }
            Token::Name(name) => {
                // `math.pi`, `math.sin(x)`: the module's names are the same as the bare ones.
                let name = if name == "math" && self.eat_op(".") {
                    match self.peek().cloned() {
                        Some(Token::Name(inner)) => {
                            self.at += 1;
                            inner
                        }
                        _ => return Err("'math.' is followed by a name".into()),
                    }
                } else {
                    name
                };
                if self.eat_op("(") {
                    return Ok(Expr::Call(name, self.args()?));
                }
                Ok(match name.as_str() {
                    "True" | "true" => Expr::Lit(Value::Bool(true)),
                    "False" | "false" => Expr::Lit(Value::Bool(false)),
                    _ => Expr::Name(name),
                })
            }
            Token::Op(op) => Err(format!("unexpected '{op}'")),
        }
    }
}

fn op_name(op: &str) -> &'static str {
    ["==", "!=", "<=", ">=", "<", ">"].into_iter().find(|o| *o == op).unwrap_or("==")
}

struct Evaluator<'a> {
    names: &'a dyn Names,
    budget: &'a Budget,
}

impl Evaluator<'_> {
    fn eval(&self, expr: &Expr) -> Result<Value, String> {
        match expr {
            Expr::Lit(v) => Ok(v.clone()),
            Expr::Name(name) => self.name(name),
            Expr::Neg(e) => Ok(Value::Num(-self.eval(e)?.num("'-'")?)),
            Expr::Not(e) => Ok(Value::Bool(!self.eval(e)?.python_truth())),
            Expr::And(a, b) => {
                let a = self.eval(a)?;
                if a.python_truth() { self.eval(b) } else { Ok(a) }
            }
            Expr::Or(a, b) => {
                let a = self.eval(a)?;
                if a.python_truth() { Ok(a) } else { self.eval(b) }
            }
            Expr::If { then, cond, otherwise } => {
                if self.eval(cond)?.python_truth() {
                    self.eval(then)
                } else {
                    self.eval(otherwise)
                }
            }
            Expr::Bin(op, a, b) => self.binary(op, self.eval(a)?, self.eval(b)?),
            Expr::Call(name, args) => {
                let args = args.iter().map(|a| self.eval(a)).collect::<Result<Vec<_>, _>>()?;
                call(name, &args)
            }
            Expr::Method(receiver, name, args) => {
                let receiver = self.eval(receiver)?;
                let args = args.iter().map(|a| self.eval(a)).collect::<Result<Vec<_>, _>>()?;
                let result = method(&receiver, name, &args)?;
                self.bounded(result)
            }
        }
    }

    fn name(&self, name: &str) -> Result<Value, String> {
        if let Some(value) = self.names.lookup(name) {
            return self.bounded(value);
        }
        match name {
            "pi" => Ok(Value::Num(std::f64::consts::PI)),
            "e" => Ok(Value::Num(std::f64::consts::E)),
            "inf" => Ok(Value::Num(f64::INFINITY)),
            _ => Err(format!(
                "unknown property '{name}' (declare it with <xacro:property name=\"{name}\" value=\"...\"/>)"
            )),
        }
    }

    fn bounded(&self, value: Value) -> Result<Value, String> {
        if let Value::Str(s) = &value {
            if s.len() > self.budget.max_string {
                return Err(format!(
                    "a string grew past {} bytes, more than a robot's file may hold",
                    self.budget.max_string
                ));
            }
            self.budget.charge(s.len())?;
        }
        Ok(value)
    }

    fn binary(&self, op: &str, a: Value, b: Value) -> Result<Value, String> {
        use Value::{Bool, Num, Str};
        let compare = |ordering: Option<std::cmp::Ordering>| -> Result<Value, String> {
            let o = ordering.ok_or_else(|| format!("'{op}' cannot compare {a} with {b}"))?;
            Ok(Bool(match op {
                "<" => o.is_lt(),
                "<=" => o.is_le(),
                ">" => o.is_gt(),
                ">=" => o.is_ge(),
                _ => unreachable!("the comparisons are listed"),
            }))
        };
        match (op, &a, &b) {
            ("==", _, _) => Ok(Bool(equal(&a, &b))),
            ("!=", _, _) => Ok(Bool(!equal(&a, &b))),
            ("<" | "<=" | ">" | ">=", Str(x), Str(y)) => compare(Some(x.cmp(y))),
            ("<" | "<=" | ">" | ">=", _, _) => compare(a.num(op)?.partial_cmp(&b.num(op)?)),
            ("+", Str(x), Str(y)) => self.bounded(Str(format!("{x}{y}"))),
            ("*", Str(s), Num(n)) | ("*", Num(n), Str(s)) => {
                let times = n.max(0.0) as usize;
                if s.len().saturating_mul(times) > self.budget.max_string {
                    return Err(format!(
                        "a string grew past {} bytes, more than a robot's file may hold",
                        self.budget.max_string
                    ));
                }
                self.bounded(Str(s.repeat(times)))
            }
            _ => {
                let (x, y) = (a.num(&format!("'{op}'"))?, b.num(&format!("'{op}'"))?);
                let n = match op {
                    "+" => x + y,
                    "-" => x - y,
                    "*" => x * y,
                    "/" | "//" | "%" if y == 0.0 => return Err("division by zero".into()),
                    "/" => x / y,
                    "//" => (x / y).floor(),
                    "%" => x - y * (x / y).floor(),
                    "**" => x.powf(y),
                    _ => return Err(format!("'{op}' is not an operator xacro knows")),
                };
                Ok(Num(n))
            }
        }
    }
}

fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Str(x), Value::Str(y)) => x == y,
        (Value::Str(_), _) | (_, Value::Str(_)) => false,
        (x, y) => x.num("").ok() == y.num("").ok(),
    }
}

/// The functions of Python's `math` module and builtins that robot files use.
fn call(name: &str, args: &[Value]) -> Result<Value, String> {
    let nums = || args.iter().map(|a| a.num(&format!("{name}()"))).collect::<Result<Vec<_>, _>>();
    let one = || -> Result<f64, String> {
        match nums()?.as_slice() {
            [x] => Ok(*x),
            _ => Err(format!("{name}() takes one number")),
        }
    };
    let n = match name {
        "sin" => one()?.sin(),
        "cos" => one()?.cos(),
        "tan" => one()?.tan(),
        "asin" => one()?.asin(),
        "acos" => one()?.acos(),
        "atan" => one()?.atan(),
        "sqrt" => one()?.sqrt(),
        "exp" => one()?.exp(),
        "log" => one()?.ln(),
        "log10" => one()?.log10(),
        "fabs" | "abs" => one()?.abs(),
        "floor" => one()?.floor(),
        "ceil" => one()?.ceil(),
        "radians" => one()?.to_radians(),
        "degrees" => one()?.to_degrees(),
        "int" => match args {
            [Value::Str(s)] => s.trim().parse::<f64>().map_err(|_| format!("int() cannot read '{s}'"))?.trunc(),
            _ => one()?.trunc(),
        },
        "float" => match args {
            [Value::Str(s)] => s.trim().parse::<f64>().map_err(|_| format!("float() cannot read '{s}'"))?,
            _ => one()?,
        },
        "round" => match nums()?.as_slice() {
            [x] => x.round(),
            [x, digits] => {
                let scale = 10f64.powi(*digits as i32);
                (x * scale).round() / scale
            }
            _ => return Err("round() takes a number and, if you like, its digits".into()),
        },
        "atan2" | "pow" | "hypot" | "fmod" => match nums()?.as_slice() {
            [y, x] => match name {
                "atan2" => y.atan2(*x),
                "pow" => y.powf(*x),
                "hypot" => y.hypot(*x),
                _ if *x == 0.0 => return Err("division by zero".into()),
                _ => y % x,
            },
            _ => return Err(format!("{name}() takes two numbers")),
        },
        "min" | "max" => {
            let all = nums()?;
            let pick = if name == "min" { f64::min } else { f64::max };
            all.into_iter().reduce(pick).ok_or_else(|| format!("{name}() needs numbers"))?
        }
        "str" => {
            return match args {
                [v] => Ok(Value::Str(v.to_string())),
                _ => Err("str() takes one value".into()),
            };
        }
        "len" => match args {
            [Value::Str(s)] => s.chars().count() as f64,
            _ => return Err("len() takes a string".into()),
        },
        "bool" => {
            return match args {
                [v] => Ok(Value::Bool(v.python_truth())),
                _ => Err("bool() takes one value".into()),
            };
        }
        _ => {
            return Err(format!(
                "unknown function '{name}' (xacro here knows math's functions, min, max, int, float, str, len, round)"
            ));
        }
    };
    Ok(Value::Num(n))
}

/// The string methods robot files use (`namespace.strip('/')`).
fn method(receiver: &Value, name: &str, args: &[Value]) -> Result<Value, String> {
    let Value::Str(s) = receiver else {
        return Err(format!("'.{name}()' works on strings, not on {receiver}"));
    };
    let text = |i: usize| match args.get(i) {
        Some(Value::Str(t)) => Ok(t.as_str()),
        Some(other) => Err(format!(".{name}() takes strings, not {other}")),
        None => Err(format!(".{name}() needs more arguments")),
    };
    let chars = |i: usize| -> Result<Option<Vec<char>>, String> {
        if args.len() <= i { Ok(None) } else { text(i).map(|t| Some(t.chars().collect())) }
    };
    let trimmed = |set: Option<Vec<char>>, start: bool, end: bool| {
        let strip = |c: char| set.as_ref().map_or(c.is_whitespace(), |set| set.contains(&c));
        let mut t = s.as_str();
        if start {
            t = t.trim_start_matches(strip);
        }
        if end {
            t = t.trim_end_matches(strip);
        }
        Value::Str(t.to_owned())
    };
    Ok(match name {
        "replace" => Value::Str(s.replace(text(0)?, text(1)?)),
        "strip" => trimmed(chars(0)?, true, true),
        "lstrip" => trimmed(chars(0)?, true, false),
        "rstrip" => trimmed(chars(0)?, false, true),
        "upper" => Value::Str(s.to_uppercase()),
        "lower" => Value::Str(s.to_lowercase()),
        "startswith" => Value::Bool(s.starts_with(text(0)?)),
        "endswith" => Value::Bool(s.ends_with(text(0)?)),
        _ => {
            return Err(format!(
                "unknown string method '.{name}()' (xacro here knows replace, strip, lstrip, rstrip, upper, lower, startswith, endswith)"
            ));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    impl Names for HashMap<&str, Value> {
        fn lookup(&self, name: &str) -> Option<Value> {
            self.get(name).cloned()
        }
    }

    fn run(text: &str) -> Result<String, String> {
        let names = HashMap::from([
            ("r", Value::Num(0.033)),
            ("ns", Value::Str("/tb3/".into())),
            ("empty", Value::Str(String::new())),
            ("n", Value::Num(0.0)),
        ]);
        let budget = Budget { max_string: 1000, max_total: 100_000, spent: Cell::new(0) };
        eval(text, &names, &budget).map(|v| v.to_string())
    }

    #[test]
    fn arithmetic_follows_python() {
        assert_eq!(run("1 + 2 * 3").unwrap(), "7");
        assert_eq!(run("2 ** 3 ** 2").unwrap(), "512");
        assert_eq!(run("-2 ** 2").unwrap(), "-4");
        assert_eq!(run("7 // 2").unwrap(), "3");
        assert_eq!(run("-7 % 3").unwrap(), "2");
        assert_eq!(run("r * 2").unwrap(), "0.066");
        assert_eq!(run("(1 + 1) / 4").unwrap(), "0.5");
        assert_eq!(run("1e-3 * 2").unwrap(), "0.002");
        assert_eq!(run("radians(180) == pi").unwrap(), "True");
        assert_eq!(run("math.cos(math.pi)").unwrap(), "-1");
        assert_eq!(run("max(1, r, 0.5)").unwrap(), "1");
        assert_eq!(run("atan2(1, 1) * 4 == pi").unwrap(), "True");
        assert_eq!(run("int('3') + float('0.5')").unwrap(), "3.5");
    }

    #[test]
    fn strings_booleans_and_conditions() {
        assert_eq!(run("'a' + 'b'").unwrap(), "ab");
        assert_eq!(run("'' if empty == '' else empty + '_'").unwrap(), "");
        assert_eq!(run("'' if ns == '' or ns == '/' else ns.strip('/').replace('/', '_') + '_'").unwrap(), "tb3_");
        assert_eq!(run("not empty and r > 0").unwrap(), "True");
        assert_eq!(run("0 if n == 0 else 1 / n").unwrap(), "0", "the branch not taken is not evaluated");
        assert_eq!(run("\"x\".upper()").unwrap(), "X");
        assert_eq!(run("len('abc') == 3").unwrap(), "True");
    }

    #[test]
    fn mistakes_say_what_is_wrong() {
        assert!(run("wheel_radius * 2").unwrap_err().contains("unknown property 'wheel_radius'"));
        assert!(run("1 / n").unwrap_err().contains("division by zero"));
        assert!(run("'a' * 'b'").unwrap_err().contains("needs a number"));
        assert!(run("1 +").unwrap_err().contains("ends too early"));
        assert!(run("(1").unwrap_err().contains("expected ')'"));
        assert!(run("'open").unwrap_err().contains("never closed"));
        assert!(run("nope(1)").unwrap_err().contains("unknown function 'nope'"));
        assert!(run("1 2").unwrap_err().contains("unexpected number 2"));
        assert!(run(&"(".repeat(1000)).unwrap_err().contains("nests deeper"));
        assert!(run(&"-".repeat(1000)).unwrap_err().contains("nests deeper"));
        assert!(run("'ab' * 10000").unwrap_err().contains("grew past"));
        let copies = vec!["len('x' * 900)"; 200].join(" + ");
        assert!(run(&copies).unwrap_err().contains("more than"), "every string made is counted");
    }

    #[test]
    fn property_text_reads_as_a_number_when_it_is_one() {
        assert_eq!(Value::from_text("0.5"), Value::Num(0.5));
        assert_eq!(Value::from_text(" 2 "), Value::Num(2.0));
        assert_eq!(Value::from_text("base_link"), Value::Str("base_link".into()));
        assert_eq!(Value::from_text(""), Value::Str(String::new()));
        assert!(Value::from_text("True").truth().unwrap());
        assert!(!Value::Num(0.0).truth().unwrap());
        assert!(Value::from_text("maybe").truth().is_err());
    }
}
