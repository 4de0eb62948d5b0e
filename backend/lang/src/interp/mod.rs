//! Runs a parsed program: variables, expressions, control flow and functions, under
//! budgets. Statements that declare elements hand over to [`build`], which collects
//! them into a [`SceneModel`].

mod build;
mod expr;

pub(crate) use self::build::{DEFAULT_DENSITY, DEFAULT_FRICTION, DEFAULT_RESTITUTION};

use std::collections::HashMap;
use std::rc::Rc;

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;

use crate::ast::{FunctionDef, ListItem, PrintKind, Stmt, StmtKind, Type};
use crate::error::{ErrorKind, LangError, Position, Warning};
use crate::loader::SourceLoader;
use crate::model::SceneModel;
use crate::{Interpretation, Options};

pub(crate) use self::expr::{Value, format_num};

/// A variable: its declared type and current value.
type Scope = HashMap<String, (Type, Value)>;

/// How a statement ended.
enum Flow {
    Normal,
    /// A `return` ran (at that position), with its value.
    Return(Option<Value>, Position),
}

type IResult<T> = Result<T, LangError>;

pub(crate) struct Interp<'a> {
    options: &'a Options,
    loader: &'a dyn SourceLoader,
    rng: ChaCha8Rng,
    functions: HashMap<String, Rc<FunctionDef>>,
    /// Call frames, each a stack of block scopes; frame 0 is the top level, whose
    /// outermost scope holds the globals every function sees.
    frames: Vec<Vec<Scope>>,
    instructions: u64,
    /// Current nesting of statements and expressions being evaluated (Rust stack use).
    depth: usize,
    log: Vec<String>,
    warnings: Vec<Warning>,
    builder: build::Builder,
}

impl<'a> Interp<'a> {
    /// An interpreter that starts with the parser's `warnings`.
    pub(crate) fn new(options: &'a Options, loader: &'a dyn SourceLoader, warnings: Vec<Warning>) -> Interp<'a> {
        Interp {
            options,
            loader,
            rng: ChaCha8Rng::seed_from_u64(options.seed),
            functions: HashMap::new(),
            frames: vec![vec![Scope::new()]],
            instructions: 0,
            depth: 0,
            log: Vec::new(),
            warnings,
            builder: build::Builder::new(),
        }
    }

    /// Runs the whole program and finishes the model.
    pub(crate) fn run(mut self, program: &[Stmt]) -> IResult<Interpretation> {
        self.hoist_functions(program)?;
        for stmt in program {
            if let Flow::Return(_, pos) = self.exec(stmt)? {
                return Err(misplaced(&pos, "return outside a function"));
            }
        }
        let model: SceneModel = self.builder.finish()?;
        Ok(Interpretation { model, log: self.log, warnings: Warning::merge_repeats(self.warnings) })
    }

    /// Top-level functions are known before the first statement runs, so they may call
    /// each other in any order.
    fn hoist_functions(&mut self, stmts: &[Stmt]) -> IResult<()> {
        for stmt in stmts {
            match &stmt.kind {
                StmtKind::Function(def) => {
                    if let Some(first) = self.functions.get(&def.name) {
                        return Err(LangError::new(
                            stmt.pos.clone(),
                            ErrorKind::Duplicate(format!(
                                "the function '{}' is already declared at {}",
                                def.name, first.pos
                            )),
                        ));
                    }
                    self.functions.insert(def.name.clone(), def.clone());
                }
                StmtKind::Included(inner) => self.hoist_functions(inner)?,
                _ => {}
            }
        }
        Ok(())
    }

    /// Counts one unit of work against the instruction budget.
    fn tick(&mut self, pos: &Position) -> IResult<()> {
        self.instructions += 1;
        if self.instructions > self.options.budgets.max_instructions {
            return Err(LangError::new(
                pos.clone(),
                ErrorKind::Budget(format!(
                    "the scene ran more than {} instructions: is there an endless loop?",
                    self.options.budgets.max_instructions
                )),
            ));
        }
        Ok(())
    }

    fn warn(&mut self, pos: &Position, message: String) {
        self.warnings.push(Warning { pos: pos.clone(), message });
    }

    // ---- variables -----------------------------------------------------------------

    fn scopes(&mut self) -> &mut Vec<Scope> {
        self.frames.last_mut().expect("there is always a frame")
    }

    fn declare(&mut self, pos: &Position, name: &str, ty: Type, value: Value) -> IResult<()> {
        let scope = self.scopes().last_mut().expect("there is always a scope");
        if scope.contains_key(name) {
            return Err(LangError::new(
                pos.clone(),
                ErrorKind::Duplicate(format!("'{name}' is already declared in this scope")),
            ));
        }
        scope.insert(name.to_owned(), (ty, value));
        Ok(())
    }

    /// The variable `name`: innermost scope of the current call first, then the globals.
    fn variable(&mut self, name: &str) -> Option<&mut (Type, Value)> {
        let last = self.frames.len() - 1;
        let found = self.frames[last].iter().rposition(|s| s.contains_key(name));
        match found {
            Some(scope) => self.frames[last][scope].get_mut(name),
            None if last > 0 => self.frames[0][0].get_mut(name),
            None => None,
        }
    }

    fn assign(&mut self, pos: &Position, name: &str, value: Value) -> IResult<()> {
        let Some((ty, slot)) = self.variable(name) else {
            return Err(LangError::new(pos.clone(), ErrorKind::UnknownVariable(name.to_owned())));
        };
        if value.ty() != *ty {
            return Err(type_error(pos, format!("'{name}' is a {}, not a {}", ty.name(), value.ty().name())));
        }
        *slot = value;
        Ok(())
    }

    fn with_scope<T>(&mut self, run: impl FnOnce(&mut Self) -> IResult<T>) -> IResult<T> {
        self.scopes().push(Scope::new());
        let result = run(self);
        self.scopes().pop();
        result
    }

    // ---- statements ----------------------------------------------------------------

    fn exec_all(&mut self, stmts: &[Stmt]) -> IResult<Flow> {
        for stmt in stmts {
            if let flow @ Flow::Return(..) = self.exec(stmt)? {
                return Ok(flow);
            }
        }
        Ok(Flow::Normal)
    }

    fn exec(&mut self, stmt: &Stmt) -> IResult<Flow> {
        self.enter(&stmt.pos)?;
        let flow = self.exec_inner(stmt);
        self.depth -= 1;
        flow
    }

    /// Counts one unit of work and one level of nesting; the caller leaves the level.
    fn enter(&mut self, pos: &Position) -> IResult<()> {
        self.tick(pos)?;
        self.depth += 1;
        if self.depth > self.options.budgets.max_eval_depth {
            self.depth -= 1;
            return Err(LangError::new(
                pos.clone(),
                ErrorKind::Budget(format!(
                    "calls, blocks and expressions are nested more than {} deep: runaway recursion?",
                    self.options.budgets.max_eval_depth
                )),
            ));
        }
        Ok(())
    }

    fn exec_inner(&mut self, stmt: &Stmt) -> IResult<Flow> {
        let pos = &stmt.pos;
        match &stmt.kind {
            StmtKind::Block(stmts) => return self.with_scope(|me| me.exec_all(stmts)),
            StmtKind::Included(stmts) => return self.exec_all(stmts),
            StmtKind::Decl { ty, name, init } => {
                let value = match init {
                    Some(init) => {
                        let value = self.eval(init)?;
                        if value.ty() != *ty {
                            return Err(type_error(
                                &init.pos,
                                format!("'{name}' is a {}, not a {}", ty.name(), value.ty().name()),
                            ));
                        }
                        value
                    }
                    None => Value::default_of(*ty),
                };
                self.declare(pos, name, *ty, value)?;
            }
            StmtKind::Assign { name, value } => {
                let value = self.eval(value)?;
                self.assign(pos, name, value)?;
            }
            StmtKind::If { cond, then, otherwise } => {
                let branch = if self.condition(cond)? { Some(then) } else { otherwise.as_ref() };
                if let Some(branch) = branch {
                    return self.with_scope(|me| me.exec(branch));
                }
            }
            StmtKind::For { var, items, body } => return self.exec_for(var, items, body),
            StmtKind::Function(_) => {}
            StmtKind::Return(value) => {
                if self.frames.len() == 1 {
                    return Err(misplaced(pos, "return outside a function"));
                }
                let value = value.as_ref().map(|v| self.eval(v)).transpose()?;
                return Ok(Flow::Return(value, pos.clone()));
            }
            StmtKind::Expr(expr) => {
                self.eval_maybe_void(expr)?;
            }
            StmtKind::Print(kind, expr) => {
                let value = self.eval(expr)?;
                let (wanted, line) = match (kind, &value) {
                    (PrintKind::Str, Value::Str(s)) => (Type::Str, s.to_string()),
                    (PrintKind::Num, Value::Num(n)) => (Type::Num, expr::format_num(*n)),
                    (PrintKind::Bool, Value::Bool(b)) => (Type::Bool, b.to_string()),
                    (PrintKind::Str, _) => (Type::Str, String::new()),
                    (PrintKind::Num, _) => (Type::Num, String::new()),
                    (PrintKind::Bool, _) => (Type::Bool, String::new()),
                };
                if value.ty() != wanted {
                    let name = match kind {
                        PrintKind::Str => "print_str",
                        PrintKind::Num => "print_num",
                        PrintKind::Bool => "print_bool",
                    };
                    return Err(type_error(
                        &expr.pos,
                        format!("{name} prints a {}, not a {}", wanted.name(), value.ty().name()),
                    ));
                }
                if self.log.len() >= self.options.budgets.max_log_lines {
                    return Err(LangError::new(
                        pos.clone(),
                        ErrorKind::Budget(format!("the scene printed more than {} lines", self.log.len())),
                    ));
                }
                self.log.push(line);
            }
            _ => return self.exec_element(stmt),
        }
        Ok(Flow::Normal)
    }

    fn exec_for(&mut self, var: &str, items: &[ListItem], body: &Stmt) -> IResult<Flow> {
        for item in items {
            let (from, to, inclusive, step, single) = match item {
                ListItem::Single(e) => {
                    let v = self.num(e, "a list element")?;
                    (v, v, true, 1.0, true)
                }
                ListItem::Range { from, to, inclusive, step } => {
                    let f = self.num(from, "the start of a range")?;
                    let t = self.num(to, "the end of a range")?;
                    let s = match step {
                        Some(step) => {
                            let s = self.num(step, "the step of a range")?;
                            if s == 0.0 {
                                return Err(LangError::new(
                                    step.pos.clone(),
                                    ErrorKind::Value("the step of a range cannot be 0".into()),
                                ));
                            }
                            s
                        }
                        None => 1.0,
                    };
                    (f, t, *inclusive, s, false)
                }
            };
            let mut k = 0.0f64;
            loop {
                let x = from + k * step;
                let inside = if single {
                    k == 0.0
                } else if step > 0.0 {
                    if inclusive { x <= to } else { x < to }
                } else if inclusive {
                    x >= to
                } else {
                    x > to
                };
                if !inside {
                    break;
                }
                self.tick(&body.pos)?;
                let flow = self.with_scope(|me| {
                    me.declare(&body.pos, var, Type::Num, Value::Num(x))?;
                    me.exec(body)
                })?;
                if let Flow::Return(..) = flow {
                    return Ok(flow);
                }
                k += 1.0;
            }
        }
        Ok(Flow::Normal)
    }

    /// Calls the user function `name`.
    fn call(&mut self, pos: &Position, name: &str, args: Vec<Value>) -> IResult<Option<Value>> {
        let Some(def) = self.functions.get(name).cloned() else {
            return Err(LangError::new(pos.clone(), ErrorKind::UnknownFunction(name.to_owned())));
        };
        if args.len() != def.params.len() {
            return Err(type_error(pos, format!("'{name}' takes {} value(s), not {}", def.params.len(), args.len())));
        }
        if self.frames.len() > self.options.budgets.max_call_depth {
            return Err(LangError::new(
                pos.clone(),
                ErrorKind::Budget(format!(
                    "calls are nested more than {} deep: does '{name}' call itself without end?",
                    self.options.budgets.max_call_depth
                )),
            ));
        }
        let mut scope = Scope::new();
        for (i, ((ty, param), value)) in def.params.iter().zip(args).enumerate() {
            if value.ty() != *ty {
                return Err(type_error(
                    pos,
                    format!(
                        "value {} of '{name}' ('{param}') must be a {}, not a {}",
                        i + 1,
                        ty.name(),
                        value.ty().name()
                    ),
                ));
            }
            scope.insert(param.clone(), (*ty, value));
        }
        self.frames.push(vec![scope]);
        let flow = self.exec_all(&def.body);
        self.frames.pop();
        let returned = match flow? {
            Flow::Normal => None,
            Flow::Return(value, _) => value,
        };
        match (def.returns, returned) {
            (None, None) => Ok(None),
            (None, Some(_)) => Err(type_error(pos, format!("'{name}' is void: it cannot return a value"))),
            (Some(ty), None) => Err(type_error(pos, format!("'{name}' ended without returning a {}", ty.name()))),
            (Some(ty), Some(value)) if value.ty() != ty => {
                Err(type_error(pos, format!("'{name}' must return a {}, not a {}", ty.name(), value.ty().name())))
            }
            (Some(_), Some(value)) => Ok(Some(value)),
        }
    }
}

fn type_error(pos: &Position, message: String) -> LangError {
    LangError::new(pos.clone(), ErrorKind::Type(message))
}

fn misplaced(pos: &Position, message: &str) -> LangError {
    LangError::new(pos.clone(), ErrorKind::Misplaced(message.to_owned()))
}
