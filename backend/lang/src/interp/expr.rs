//! Values and expression evaluation.

use std::rc::Rc;

use rand_chacha::rand_core::RngCore;

use super::{IResult, Interp, type_error};
use crate::ast::{BinOp, Builtin, Expr, ExprKind, Type, UnOp};
use crate::error::{ErrorKind, LangError, Position};

/// A run-time value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    Num(f64),
    Str(Rc<str>),
    Bool(bool),
}

impl Value {
    pub(crate) fn ty(&self) -> Type {
        match self {
            Value::Num(_) => Type::Num,
            Value::Str(_) => Type::Str,
            Value::Bool(_) => Type::Bool,
        }
    }

    pub(crate) fn default_of(ty: Type) -> Value {
        match ty {
            Type::Num => Value::Num(0.0),
            Type::Str => Value::Str(Rc::from("")),
            Type::Bool => Value::Bool(false),
        }
    }
}

/// Numbers as `string(x)` and `print_num` show them: whole numbers without decimals
/// (`pyr_10`, not `pyr_10.0`), others in the shortest form that reads back exactly.
pub(crate) fn format_num(n: f64) -> String {
    if n == n.trunc() && n.abs() < 1e15 { format!("{}", n as i64) } else { format!("{n}") }
}

fn value_error(pos: &Position, message: String) -> LangError {
    LangError::new(pos.clone(), ErrorKind::Value(message))
}

fn finite(pos: &Position, n: f64) -> IResult<f64> {
    if n.is_finite() { Ok(n) } else { Err(value_error(pos, "the result is not a finite number (too large?)".into())) }
}

impl Interp<'_> {
    /// Evaluates an expression that must produce a value.
    pub(super) fn eval(&mut self, expr: &Expr) -> IResult<Value> {
        match self.eval_maybe_void(expr)? {
            Some(value) => Ok(value),
            None => {
                let ExprKind::Call(name, _) = &expr.kind else { unreachable!("only calls can be void") };
                Err(type_error(&expr.pos, format!("'{name}' is void: it returns no value to use")))
            }
        }
    }

    /// A number, or a type error naming `what`.
    pub(super) fn num(&mut self, expr: &Expr, what: &str) -> IResult<f64> {
        match self.eval(expr)? {
            Value::Num(n) => Ok(n),
            other => Err(type_error(&expr.pos, format!("{what} must be a num, not a {}", other.ty().name()))),
        }
    }

    /// A string, or a type error naming `what`.
    pub(super) fn string(&mut self, expr: &Expr, what: &str) -> IResult<Rc<str>> {
        match self.eval(expr)? {
            Value::Str(s) => Ok(s),
            other => Err(type_error(&expr.pos, format!("{what} must be a string, not a {}", other.ty().name()))),
        }
    }

    /// A condition: a boolean, or a number (true when non-zero).
    pub(super) fn condition(&mut self, expr: &Expr) -> IResult<bool> {
        match self.eval(expr)? {
            Value::Bool(b) => Ok(b),
            Value::Num(n) => Ok(n != 0.0),
            Value::Str(_) => Err(type_error(&expr.pos, "a condition must be a boolean or a num, not a string".into())),
        }
    }

    pub(super) fn eval_maybe_void(&mut self, expr: &Expr) -> IResult<Option<Value>> {
        self.enter(&expr.pos)?;
        let value = self.eval_inner(expr);
        self.depth -= 1;
        value
    }

    fn eval_inner(&mut self, expr: &Expr) -> IResult<Option<Value>> {
        let pos = &expr.pos;
        let value = match &expr.kind {
            ExprKind::Num(n) => Value::Num(*n),
            ExprKind::Str(s) => Value::Str(s.clone()),
            ExprKind::Bool(b) => Value::Bool(*b),
            ExprKind::Var(name) => match self.variable(name) {
                Some((_, value)) => value.clone(),
                None => match name.as_str() {
                    "pi" | "PI" => Value::Num(std::f64::consts::PI),
                    "e" | "E" => Value::Num(std::f64::consts::E),
                    _ => return Err(LangError::new(pos.clone(), ErrorKind::UnknownVariable(name.clone()))),
                },
            },
            ExprKind::Unary(op, operand) => match (op, self.eval(operand)?) {
                (UnOp::Neg, Value::Num(n)) => Value::Num(-n),
                (UnOp::Not, Value::Bool(b)) => Value::Bool(!b),
                (UnOp::Not, Value::Num(n)) => Value::Bool(n == 0.0),
                (UnOp::Neg, other) => {
                    return Err(type_error(pos, format!("'-' needs a num, not a {}", other.ty().name())));
                }
                (UnOp::Not, other) => {
                    return Err(type_error(pos, format!("'!' needs a boolean, not a {}", other.ty().name())));
                }
            },
            ExprKind::Binary(op, left, right) => self.binary(*op, left, right, pos)?,
            ExprKind::Builtin(builtin, args) => self.builtin(*builtin, args, pos)?,
            ExprKind::Call(name, args) => {
                let mut values = Vec::with_capacity(args.len());
                for arg in args {
                    values.push(self.eval(arg)?);
                }
                return self.call(pos, name, values);
            }
        };
        Ok(Some(value))
    }

    fn binary(&mut self, op: BinOp, left: &Expr, right: &Expr, pos: &Position) -> IResult<Value> {
        if matches!(op, BinOp::And | BinOp::Or) {
            let l = self.condition(left)?;
            if (op == BinOp::And && !l) || (op == BinOp::Or && l) {
                return Ok(Value::Bool(l));
            }
            return Ok(Value::Bool(self.condition(right)?));
        }
        let (l, r) = (self.eval(left)?, self.eval(right)?);
        let mismatch = |side: &str, v: &Value, wanted: &str, hint: &str| {
            type_error(
                pos,
                format!("'{}' needs {wanted}, but the {side} side is a {}{hint}", op.symbol(), v.ty().name()),
            )
        };
        if op == BinOp::Concat {
            return match (&l, &r) {
                (Value::Str(a), Value::Str(b)) => {
                    if a.len() + b.len() > self.options.budgets.max_string_len {
                        return Err(LangError::new(
                            pos.clone(),
                            ErrorKind::Budget(format!(
                                "a string grew longer than {} characters",
                                self.options.budgets.max_string_len
                            )),
                        ));
                    }
                    Ok(Value::Str(Rc::from(format!("{a}{b}"))))
                }
                (Value::Str(_), other) => Err(mismatch("right", other, "strings", ": convert it with string(...)")),
                (other, _) => Err(mismatch("left", other, "strings", ": convert it with string(...)")),
            };
        }
        if matches!(op, BinOp::Eq | BinOp::Ne) {
            if l.ty() != r.ty() {
                return Err(type_error(pos, format!("cannot compare a {} with a {}", l.ty().name(), r.ty().name())));
            }
            return Ok(Value::Bool((l == r) == (op == BinOp::Eq)));
        }
        let (a, b) = match (&l, &r) {
            (Value::Num(a), Value::Num(b)) => (*a, *b),
            (Value::Num(_), other) => {
                let hint = if op == BinOp::Add && other.ty() == Type::Str { ": use '.' to join strings" } else { "" };
                return Err(mismatch("right", other, "numbers", hint));
            }
            (other, _) => {
                let hint = if op == BinOp::Add && other.ty() == Type::Str { ": use '.' to join strings" } else { "" };
                return Err(mismatch("left", other, "numbers", hint));
            }
        };
        Ok(match op {
            BinOp::Add => Value::Num(finite(pos, a + b)?),
            BinOp::Sub => Value::Num(finite(pos, a - b)?),
            BinOp::Mul => Value::Num(finite(pos, a * b)?),
            BinOp::Div => {
                if b == 0.0 {
                    return Err(LangError::new(right.pos.clone(), ErrorKind::DivisionByZero));
                }
                Value::Num(finite(pos, a / b)?)
            }
            BinOp::Pow => {
                let result = a.powf(b);
                if result.is_nan() {
                    return Err(value_error(
                        pos,
                        format!("{} ^ {} is not a real number", format_num(a), format_num(b)),
                    ));
                }
                Value::Num(finite(pos, result)?)
            }
            BinOp::Lt => Value::Bool(a < b),
            BinOp::Le => Value::Bool(a <= b),
            BinOp::Gt => Value::Bool(a > b),
            BinOp::Ge => Value::Bool(a >= b),
            BinOp::Concat | BinOp::And | BinOp::Or | BinOp::Eq | BinOp::Ne => unreachable!("handled above"),
        })
    }

    /// A uniform draw in [0, 1) from the scene's seeded generator.
    fn unit_random(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    fn builtin(&mut self, builtin: Builtin, args: &[Expr], pos: &Position) -> IResult<Value> {
        match builtin {
            Builtin::String => {
                return Ok(Value::Str(match self.eval(&args[0])? {
                    Value::Num(n) => Rc::from(format_num(n)),
                    Value::Bool(b) => Rc::from(b.to_string()),
                    Value::Str(s) => s,
                }));
            }
            Builtin::Bool => {
                return match self.eval(&args[0])? {
                    Value::Num(n) => Ok(Value::Bool(n != 0.0)),
                    Value::Bool(b) => Ok(Value::Bool(b)),
                    Value::Str(_) => Err(type_error(&args[0].pos, "bool(...) needs a num, not a string".into())),
                };
            }
            _ => {}
        }
        let mut x = [0.0f64; 2];
        for (slot, arg) in x.iter_mut().zip(args) {
            *slot = self.num(arg, "this function's value")?;
        }
        let [a, b] = x;
        let result = match builtin {
            Builtin::Sin => a.sin(),
            Builtin::Cos => a.cos(),
            Builtin::Tan => a.tan(),
            Builtin::Atan => a.atan(),
            Builtin::Atan2 => a.atan2(b),
            Builtin::Sign => {
                if a > 0.0 {
                    1.0
                } else if a < 0.0 {
                    -1.0
                } else {
                    0.0
                }
            }
            Builtin::Sqrt => {
                if a < 0.0 {
                    return Err(value_error(pos, format!("sqrt needs a number ≥ 0, got {}", format_num(a))));
                }
                a.sqrt()
            }
            Builtin::Log | Builtin::Log10 => {
                if a <= 0.0 {
                    return Err(value_error(pos, format!("log needs a number > 0, got {}", format_num(a))));
                }
                if builtin == Builtin::Log { a.ln() } else { a.log10() }
            }
            Builtin::Exp => a.exp(),
            Builtin::Abs => a.abs(),
            Builtin::Floor => a.floor(),
            Builtin::Ceil => a.ceil(),
            Builtin::Round => a.round(),
            Builtin::Mod => {
                if b == 0.0 {
                    return Err(LangError::new(args[1].pos.clone(), ErrorKind::DivisionByZero));
                }
                a % b
            }
            Builtin::Min => a.min(b),
            Builtin::Max => a.max(b),
            Builtin::Random => {
                let u = self.unit_random();
                match args.len() {
                    0 => u,
                    1 => u * a,
                    _ => a + u * (b - a),
                }
            }
            Builtin::String | Builtin::Bool => unreachable!("handled above"),
        };
        Ok(Value::Num(finite(pos, result)?))
    }
}

#[cfg(test)]
mod tests {
    use super::format_num;

    #[test]
    fn whole_numbers_print_without_decimals() {
        assert_eq!(format_num(10.0), "10");
        assert_eq!(format_num(-3.0), "-3");
        assert_eq!(format_num(2.5), "2.5");
        assert_eq!(format_num(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(format_num(1e20), "100000000000000000000");
    }
}
