//! The xacro elements run over the tree: properties, args, macros and their calls,
//! conditionals, blocks and includes; every other element is copied with `${...}` and
//! `$(...)` substituted in its attributes and text. Each step, each byte written and each
//! nested call is counted against the limits of [`super::Limits`].

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use super::expr::{self, Names, Value};
use super::tree::{self, Element, Node};
use super::{Limits, XacroArgs};
use crate::error::{ErrorKind, LangError, Position};
use crate::loader::{SourceLoader, resolve_path};

/// A macro's parameter.
#[derive(Clone, Debug)]
enum Param {
    /// `name`, `name:=default`, `name:=^` (the caller's property of that name),
    /// `name:=^|default`.
    Value { name: String, default: Option<String>, inherit: bool },
    /// `*name`: the next element of the call.
    Block(String),
    /// `**name`: the children of the next element of the call.
    Blocks(String),
}

/// A declared macro.
#[derive(Debug)]
struct Macro {
    params: Vec<Param>,
    body: Vec<Node>,
    /// The file it was declared in (includes in its body resolve from there).
    file: Arc<str>,
}

/// One scope: a file's top level or one macro call.
#[derive(Default)]
struct Frame {
    properties: HashMap<String, Value>,
    blocks: HashMap<String, Rc<Vec<Node>>>,
    macros: HashMap<String, Rc<Macro>>,
}

/// The expansion under way.
pub(super) struct Expander<'a> {
    loader: &'a dyn SourceLoader,
    given: &'a XacroArgs,
    limits: Limits,
    args: HashMap<String, String>,
    frames: Vec<Frame>,
    /// The file whose elements run now (relative includes resolve from it).
    file: Arc<str>,
    /// Files being included, outermost first (an include of one of them is a loop).
    including: Vec<Arc<str>>,
    /// Nested macro calls, includes and elements.
    depth: usize,
    steps: usize,
    bytes: usize,
    /// What strings made or copied may cost.
    budget: expr::Budget,
}

type Result<T> = std::result::Result<T, LangError>;

impl Names for Expander<'_> {
    fn lookup(&self, name: &str) -> Option<Value> {
        self.frames.iter().rev().find_map(|f| f.properties.get(name).cloned())
    }
}

impl<'a> Expander<'a> {
    /// An expander of the file `file`.
    pub fn new(loader: &'a dyn SourceLoader, given: &'a XacroArgs, limits: Limits, file: Arc<str>) -> Self {
        Expander {
            loader,
            given,
            limits,
            args: HashMap::new(),
            frames: vec![Frame::default()],
            including: vec![file.clone()],
            file,
            depth: 0,
            steps: 0,
            bytes: 0,
            budget: expr::Budget {
                max_string: limits.max_bytes,
                max_total: limits.max_bytes.saturating_mul(super::VALUE_BYTES_PER_OUTPUT_BYTE),
                spent: std::cell::Cell::new(0),
            },
        }
    }

    /// Expands the root element: the same element with its children expanded.
    pub fn root(&mut self, root: &Element) -> Result<Element> {
        let mut out = Vec::new();
        self.element(root, &mut out)?;
        match out.pop() {
            Some(Node::Element(e)) if out.is_empty() => Ok(e),
            _ => {
                Err(error(&root.pos, ErrorKind::Value("the root element of a xacro file must stay one element".into())))
            }
        }
    }

    /// Expands `nodes`, the children of `parent` (where a mistake in their text is told).
    fn children(&mut self, nodes: &[Node], parent: &Element, out: &mut Vec<Node>) -> Result<()> {
        for node in nodes {
            match node {
                Node::Element(e) => self.element(e, out)?,
                Node::Text(t) => {
                    let text = self.substitute(t, Some(parent))?;
                    self.count_bytes(text.len(), Some(parent))?;
                    out.push(Node::Text(text));
                }
            }
        }
        Ok(())
    }

    fn element(&mut self, element: &Element, out: &mut Vec<Node>) -> Result<()> {
        self.steps += 1;
        if self.steps > self.limits.max_steps {
            return Err(error(
                &element.pos,
                ErrorKind::Budget(format!(
                    "the expansion ran past {} elements: does a macro call itself without end?",
                    self.limits.max_steps
                )),
            ));
        }
        self.depth += 1;
        if self.depth > self.limits.max_depth {
            return Err(error(
                &element.pos,
                ErrorKind::Budget(format!(
                    "macros, includes and elements nest deeper than {} levels: does a macro call itself without end?",
                    self.limits.max_depth
                )),
            ));
        }
        let result = if element.xacro { self.directive(element, out) } else { self.plain(element, out) };
        self.depth -= 1;
        result
    }

    fn plain(&mut self, element: &Element, out: &mut Vec<Node>) -> Result<()> {
        let mut attrs = Vec::with_capacity(element.attrs.len());
        for (key, value) in &element.attrs {
            let value = self.substitute(value, Some(element))?;
            self.count_bytes(key.len() + value.len(), Some(element))?;
            attrs.push((key.clone(), value));
        }
        self.count_bytes(element.name.len() + 3, Some(element))?;
        let mut children = Vec::new();
        self.children(&element.children, element, &mut children)?;
        out.push(Node::Element(Element {
            name: element.name.clone(),
            xacro: false,
            attrs,
            children,
            pos: element.pos.clone(),
        }));
        Ok(())
    }

    fn directive(&mut self, element: &Element, out: &mut Vec<Node>) -> Result<()> {
        match element.name.as_str() {
            "property" => self.property(element),
            "arg" => self.arg(element),
            "macro" => self.declare_macro(element),
            "if" | "unless" => {
                let value = element.attr("value").ok_or_else(|| {
                    value_error(element, format!("<xacro:{}> needs its 'value' attribute", element.name))
                })?;
                let value = self.substitute_value(value, element)?;
                let truth = value.truth().map_err(|why| {
                    value_error(element, format!("<xacro:{}> needs a value that is true or false: {why}", element.name))
                })?;
                if truth == (element.name == "if") {
                    self.children(&element.children, element, out)?;
                }
                Ok(())
            }
            "include" => self.include(element, out),
            "insert_block" => {
                let name = self.required(element, "name")?;
                let block = self.frames.iter().rev().find_map(|f| f.blocks.get(&name).cloned()).ok_or_else(|| {
                    value_error(
                        element,
                        format!("there is no block '{name}' here: a macro's block parameter is written '*{name}'"),
                    )
                })?;
                self.children(&block, element, out)
            }
            "call" => {
                let name = self.required(element, "macro")?;
                self.call(&name, element, out)
            }
            "element" | "attribute" => Err(value_error(
                element,
                format!("<xacro:{}> is not supported here: write the element itself", element.name),
            )),
            name => {
                let name = name.to_owned();
                self.call(&name, element, out)
            }
        }
    }

    /// `<xacro:property name value>` or, with children, a block property.
    fn property(&mut self, element: &Element) -> Result<()> {
        let name = self.required(element, "name")?;
        let frame = match element.attr("scope") {
            Some("global") => 0,
            Some("parent") => self.frames.len().saturating_sub(2),
            _ => self.frames.len() - 1,
        };
        if let Some(default) = element.attr("default") {
            if !self.frames.iter().any(|f| f.properties.contains_key(&name)) {
                let value = self.substitute_value(default, element)?;
                self.frames[frame].properties.insert(name, value);
            }
            return Ok(());
        }
        match element.attr("value") {
            Some(value) => {
                let value = self.substitute_value(value, element)?;
                self.frames[frame].properties.insert(name, value);
            }
            None => {
                let block = Rc::new(element.children.clone());
                self.frames[frame].blocks.insert(name, block);
            }
        }
        Ok(())
    }

    /// `<xacro:arg name default>`: the value given for it, else its default.
    fn arg(&mut self, element: &Element) -> Result<()> {
        let name = self.required(element, "name")?;
        if self.args.contains_key(&name) {
            return Ok(());
        }
        let value = match (self.given.get(&name), element.attr("default")) {
            (Some(given), _) => given.clone(),
            (None, Some(default)) => self.substitute(default, Some(element))?,
            (None, None) => {
                return Err(value_error(
                    element,
                    format!("the arg '{name}' has no default, and no value was given for it"),
                ));
            }
        };
        self.args.insert(name, value);
        Ok(())
    }

    fn declare_macro(&mut self, element: &Element) -> Result<()> {
        let name = self.required(element, "name")?;
        let params = parse_params(element.attr("params").unwrap_or(""))
            .map_err(|why| value_error(element, format!("the macro '{name}' has {why}")))?;
        let declared = Macro { params, body: element.children.clone(), file: self.file.clone() };
        self.frames.last_mut().expect("a frame").macros.insert(name, Rc::new(declared));
        Ok(())
    }

    fn call(&mut self, name: &str, element: &Element, out: &mut Vec<Node>) -> Result<()> {
        let Some(called) = self.frames.iter().rev().find_map(|f| f.macros.get(name).cloned()) else {
            return Err(value_error(
                element,
                format!(
                    "no macro '{name}' is declared before this call (declare it with <xacro:macro name=\"{name}\" params=\"...\">, or include the file that does)"
                ),
            ));
        };
        let mut frame = Frame::default();
        let mut given: HashMap<&str, &str> = element
            .attrs
            .iter()
            .filter(|(k, _)| !(element.name == "call" && k == "macro"))
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let mut blocks = element.elements();
        for param in &called.params {
            match param {
                Param::Value { name: param, default, inherit } => {
                    let value = match (given.remove(param.as_str()), inherit, default) {
                        (Some(text), _, _) => self.substitute_value(text, element)?,
                        (None, true, default) => match (self.lookup(param), default) {
                            (Some(outer), _) => outer,
                            (None, Some(default)) => self.substitute_value(default, element)?,
                            (None, None) => {
                                return Err(value_error(
                                    element,
                                    format!(
                                        "the macro '{name}' takes '{param}' from a property of the caller, and there is none"
                                    ),
                                ));
                            }
                        },
                        (None, false, Some(default)) => self.substitute_value(default, element)?,
                        (None, false, None) => {
                            return Err(value_error(
                                element,
                                format!("the macro '{name}' needs '{param}': add {param}=\"...\""),
                            ));
                        }
                    };
                    frame.properties.insert(param.clone(), value);
                }
                Param::Block(block) | Param::Blocks(block) => {
                    let next = blocks.next().ok_or_else(|| {
                        value_error(
                            element,
                            format!("the macro '{name}' needs an element inside the call for its block '{block}'"),
                        )
                    })?;
                    let content = if matches!(param, Param::Block(_)) {
                        vec![Node::Element(next.clone())]
                    } else {
                        next.children.clone()
                    };
                    frame.blocks.insert(block.clone(), Rc::new(content));
                }
            }
        }
        if let Some((unknown, _)) = given.into_iter().next() {
            let known: Vec<&str> = called
                .params
                .iter()
                .filter_map(|p| match p {
                    Param::Value { name, .. } => Some(name.as_str()),
                    _ => None,
                })
                .collect();
            return Err(value_error(
                element,
                format!("the macro '{name}' has no parameter '{unknown}' (it takes: {})", known.join(", ")),
            ));
        }
        self.frames.push(frame);
        let outer_file = std::mem::replace(&mut self.file, called.file.clone());
        let result = self.children(&called.body, element, out);
        self.file = outer_file;
        self.frames.pop();
        result
    }

    /// `<xacro:include filename [ns]>`: the file's top-level elements run here.
    fn include(&mut self, element: &Element, out: &mut Vec<Node>) -> Result<()> {
        let written = self.required(element, "filename")?;
        let (path, text) = self
            .load(&written)
            .map_err(|why| error(&element.pos, ErrorKind::Include(format!("cannot include '{written}': {why}"))))?;
        let path: Arc<str> = path.into();
        if self.including.contains(&path) {
            return Err(error(
                &element.pos,
                ErrorKind::Include(format!("'{path}' includes itself (through the files it includes)")),
            ));
        }
        let parsed = tree::parse(&text, &path, self.limits.max_depth)?;
        self.including.push(path.clone());
        let outer_file = std::mem::replace(&mut self.file, path);
        let result = match element.attr("ns") {
            // The file's macros and properties are reached as `ns.name`.
            Some(ns) => {
                self.frames.push(Frame::default());
                let result = self.children(&parsed.root.children, element, out);
                let inner = self.frames.pop().expect("pushed");
                let frame = self.frames.last_mut().expect("a frame");
                for (name, m) in inner.macros {
                    frame.macros.insert(format!("{ns}.{name}"), m);
                }
                for (name, v) in inner.properties {
                    frame.properties.insert(format!("{ns}.{name}"), v);
                }
                result
            }
            None => self.children(&parsed.root.children, element, out),
        };
        self.file = outer_file;
        self.including.pop();
        result
    }

    /// The file an include names, from the upload or the library: `package://pkg/path`
    /// (what `$(find pkg)` writes) as `pkg/path`, then `path`; anything else relative
    /// to the including file; then, as meshes are, by its bare name (files picked in the
    /// browser come without their folders).
    fn load(&self, written: &str) -> std::result::Result<(String, String), String> {
        let mut candidates: Vec<String> = match written.strip_prefix("package://") {
            Some(rest) => {
                let mut c = vec![resolve_path("", rest)?];
                if let Some((_, inside)) = rest.split_once('/') {
                    c.push(resolve_path("", inside)?);
                }
                c
            }
            None => vec![resolve_path(&self.file, written)?],
        };
        if let Some(bare) = written.rsplit('/').next().filter(|b| !candidates.iter().any(|c| c.as_str() == *b)) {
            candidates.push(resolve_path("", bare)?);
        }
        let mut first = None;
        for candidate in candidates {
            match self.loader.load(&candidate) {
                Ok(text) => return Ok((candidate, text)),
                Err(e) => {
                    first.get_or_insert(e.to_string());
                }
            }
        }
        Err(first.unwrap_or_default())
    }

    /// `text` with every `${expr}` and `$(command)` replaced (`$$` writes a `$`).
    fn substitute(&self, text: &str, at: Option<&Element>) -> Result<String> {
        if !text.contains('$') {
            return Ok(text.to_owned());
        }
        let mut out = String::new();
        let mut rest = text;
        while let Some(i) = rest.find('$') {
            out.push_str(&rest[..i]);
            let after = &rest[i + 1..];
            if let Some(escaped) = after.strip_prefix('$') {
                out.push('$');
                rest = escaped;
            } else if let Some(inner) = after.strip_prefix('{') {
                let end = closing(inner, '{', '}')
                    .ok_or_else(|| self.at(at, format!("'${{' in '{text}' is never closed: add a '}}'")))?;
                let value = expr::eval(&inner[..end], self, &self.budget)
                    .map_err(|why| self.at(at, format!("in ${{{}}}: {why}", &inner[..end])))?;
                out.push_str(&value.to_string());
                rest = &inner[end + 1..];
            } else if let Some(inner) = after.strip_prefix('(') {
                let end = closing(inner, '(', ')')
                    .ok_or_else(|| self.at(at, format!("'$(' in '{text}' is never closed: add a ')'")))?;
                out.push_str(&self.command(&inner[..end], at)?);
                rest = &inner[end + 1..];
            } else {
                out.push('$');
                rest = after;
            }
            if out.len() > self.limits.max_bytes {
                return Err(self.at(
                    at,
                    format!("a value grew past {} bytes, more than a robot's file may hold", self.limits.max_bytes),
                ));
            }
        }
        out.push_str(rest);
        self.budget.charge(out.len()).map_err(|why| self.at(at, why))?;
        Ok(out)
    }

    /// Like [`Self::substitute`], but a text that is exactly one `${expr}` keeps the
    /// expression's value (a number stays a number, a boolean a boolean).
    fn substitute_value(&self, text: &str, at: &Element) -> Result<Value> {
        let trimmed = text.trim();
        if let Some(inner) = trimmed.strip_prefix("${").and_then(|t| t.strip_suffix('}'))
            && closing(inner, '{', '}').is_none()
        {
            return expr::eval(inner, self, &self.budget)
                .map_err(|why| self.at(Some(at), format!("in ${{{inner}}}: {why}")));
        }
        Ok(Value::from_text(&self.substitute(text, Some(at))?))
    }

    /// `$(arg name)`, `$(find pkg)`, `$(eval expr)`, `$(optenv NAME default)`, `$(dirname)`.
    fn command(&self, command: &str, at: Option<&Element>) -> Result<String> {
        let command = self.substitute(command, at)?;
        let mut words = command.split_whitespace();
        let verb = words.next().unwrap_or("");
        let rest: Vec<&str> = words.collect();
        match (verb, rest.as_slice()) {
            ("arg", [name]) => self.args.get(*name).cloned().ok_or_else(|| {
                self.at(at, format!("no arg '{name}' is declared before this (declare it with <xacro:arg name=\"{name}\" default=\"...\"/>)"))
            }),
            ("find", [package]) => Ok(format!("package://{package}")),
            ("eval", _) => {
                let expression = command.trim_start().strip_prefix("eval").unwrap_or("");
                expr::eval(expression, self, &self.budget)
                    .map(|v| v.to_string())
                    .map_err(|why| self.at(at, format!("in $(eval{expression}): {why}")))
            }
            // The server's environment is not the robot's: an optional one takes its default.
            ("optenv", [_, default @ ..]) => Ok(default.join(" ")),
            ("env", [name]) => Err(self.at(at, format!("$(env {name}) reads the environment of the computer running xacro, and the server's is not yours: write the value instead"))),
            ("dirname", []) => Ok(self.file.rsplit_once('/').map_or(".".to_owned(), |(dir, _)| dir.to_owned())),
            _ => Err(self.at(at, format!("$({command}) is not a substitution xacro here knows (arg, find, eval, optenv, dirname)"))),
        }
    }

    fn required(&self, element: &Element, attr: &str) -> Result<String> {
        let value = element
            .attr(attr)
            .ok_or_else(|| value_error(element, format!("<xacro:{}> needs its '{attr}' attribute", element.name)))?;
        self.substitute(value, Some(element))
    }

    fn count_bytes(&mut self, bytes: usize, at: Option<&Element>) -> Result<()> {
        self.bytes += bytes;
        if self.bytes > self.limits.max_bytes {
            return Err(self.at(
                at,
                format!(
                    "the expanded robot grew past {} KiB, more than an upload may be: does a macro call itself too often?",
                    self.limits.max_bytes / 1024
                ),
            ));
        }
        Ok(())
    }

    fn at(&self, element: Option<&Element>, message: String) -> LangError {
        let pos =
            element.map(|e| e.pos.clone()).unwrap_or_else(|| Position { file: self.file.clone(), line: 1, col: 1 });
        error(&pos, ErrorKind::Value(message))
    }
}

/// Where the bracket closing the one just opened is in `text`, skipping nested pairs
/// and quoted strings.
fn closing(text: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, c) if c == open => depth += 1,
            (None, c) if c == close => {
                if depth == 0 {
                    return Some(i);
                }
                depth -= 1;
            }
            _ => {}
        }
    }
    None
}

/// A macro's `params`: `a b:=1 c:=^ d:=^|2 *block **blocks`.
fn parse_params(text: &str) -> std::result::Result<Vec<Param>, String> {
    let mut params: Vec<Param> = Vec::new();
    for word in text.split_whitespace() {
        let param = if let Some(name) = word.strip_prefix("**") {
            Param::Blocks(name.to_owned())
        } else if let Some(name) = word.strip_prefix('*') {
            Param::Block(name.to_owned())
        } else {
            let (name, default) = match word.split_once(":=").or_else(|| word.split_once('=')) {
                Some((name, default)) => (name, Some(default)),
                None => (word, None),
            };
            let (inherit, default) = match default {
                Some("^") => (true, None),
                Some(d) => match d.strip_prefix("^|") {
                    Some(d) => (true, Some(d.to_owned())),
                    None => (false, Some(d.to_owned())),
                },
                None => (false, None),
            };
            Param::Value { name: name.to_owned(), default, inherit }
        };
        let name = match &param {
            Param::Value { name, .. } | Param::Block(name) | Param::Blocks(name) => name,
        };
        if name.is_empty() {
            return Err(format!("a parameter without a name in '{text}'"));
        }
        params.push(param);
    }
    Ok(params)
}

fn error(pos: &Position, kind: ErrorKind) -> LangError {
    LangError::new(pos.clone(), kind)
}

fn value_error(element: &Element, message: String) -> LangError {
    error(&element.pos, ErrorKind::Value(message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_read_with_their_defaults_and_blocks() {
        let params = parse_params("prefix reflect:=1 ns:=^ side:=^|left *origin **content").unwrap();
        assert_eq!(params.len(), 6);
        assert!(matches!(&params[0], Param::Value { name, default: None, inherit: false } if name == "prefix"));
        assert!(matches!(&params[1], Param::Value { default: Some(d), inherit: false, .. } if d == "1"));
        assert!(matches!(&params[2], Param::Value { default: None, inherit: true, .. }));
        assert!(matches!(&params[3], Param::Value { default: Some(d), inherit: true, .. } if d == "left"));
        assert!(matches!(&params[4], Param::Block(n) if n == "origin"));
        assert!(matches!(&params[5], Param::Blocks(n) if n == "content"));
        assert!(parse_params("*").is_err());
    }

    #[test]
    fn brackets_close_past_nested_ones_and_strings() {
        assert_eq!(closing("a + (b)) rest", '(', ')'), Some(7));
        assert_eq!(closing("'}' + x} y", '{', '}'), Some(7));
        assert_eq!(closing("never", '{', '}'), None);
    }
}
