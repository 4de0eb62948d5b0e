//! The xacro file as an owned tree of elements that know where they were written, and
//! the expanded tree written back as XML with, for each line written, the place in the
//! sources it came from.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::error::{ErrorKind, LangError, Position};

/// One node of a file.
#[derive(Clone, Debug)]
pub(super) enum Node {
    /// An element.
    Element(Element),
    /// Text (never only white space: that is dropped as it is read).
    Text(String),
}

/// An element, where it was written.
#[derive(Clone, Debug)]
pub(super) struct Element {
    /// Its name as written out (`link`, `gazebo`, `sdf:foo`); for a xacro element, the
    /// local name after `xacro:`.
    pub name: String,
    /// Whether it is in the xacro namespace.
    pub xacro: bool,
    /// Its attributes, as written out, in order.
    pub attrs: Vec<(String, String)>,
    /// Its children.
    pub children: Vec<Node>,
    /// Where it starts.
    pub pos: Position,
}

impl Element {
    /// The attribute `name`, if it has one.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// Its child elements.
    pub fn elements(&self) -> impl Iterator<Item = &Element> {
        self.children.iter().filter_map(|n| match n {
            Node::Element(e) => Some(e),
            Node::Text(_) => None,
        })
    }
}

/// A file read: its root element and the namespaces (other than xacro's) its elements
/// and attributes use, by prefix.
pub(super) struct Parsed {
    /// The root element.
    pub root: Element,
    /// `prefix → URI` of the namespaces to declare again in the output.
    pub namespaces: BTreeMap<String, String>,
}

/// Whether a namespace URI is xacro's (`http://www.ros.org/wiki/xacro`, and the
/// spellings files use: `http://ros.org/wiki/xacro`, `http://wiki.ros.org/xacro`).
pub(super) fn is_xacro_uri(uri: &str) -> bool {
    uri.contains("xacro")
}

/// Reads `text` (the file `file`) into a tree; XML that is not well-formed, or nests
/// elements deeper than `max_depth` (the tree is built and dropped recursively), is
/// refused where the parser stopped.
pub(super) fn parse(text: &str, file: &Arc<str>, max_depth: usize) -> Result<Parsed, LangError> {
    let options = roxmltree::ParsingOptions { allow_dtd: false, ..roxmltree::ParsingOptions::default() };
    let doc = roxmltree::Document::parse_with_options(text, options).map_err(|e| {
        let at = e.pos();
        LangError::new(
            Position { file: file.clone(), line: at.row, col: at.col },
            ErrorKind::Syntax(format!("the file is not well-formed XML: {e}")),
        )
    })?;
    let mut namespaces = BTreeMap::new();
    let root = element(&doc, doc.root_element(), file, &mut namespaces, (1, max_depth))?;
    Ok(Parsed { root, namespaces })
}

/// `node` as an element of the tree; `depth` is its nesting and the most allowed.
fn element(
    doc: &roxmltree::Document<'_>,
    node: roxmltree::Node<'_, '_>,
    file: &Arc<str>,
    namespaces: &mut BTreeMap<String, String>,
    (depth, max_depth): (usize, usize),
) -> Result<Element, LangError> {
    let at = doc.text_pos_at(node.range().start);
    let pos = Position { file: file.clone(), line: at.row, col: at.col };
    if depth > max_depth {
        return Err(LangError::new(
            pos,
            ErrorKind::Budget(format!("elements nest deeper than {max_depth} levels here: no robot needs that many")),
        ));
    }
    let mut qualify = |uri: Option<&str>, local: &str| -> (String, bool) {
        match uri {
            Some(uri) if is_xacro_uri(uri) => (local.to_owned(), true),
            Some(uri) => match node.lookup_prefix(uri) {
                Some(prefix) if !prefix.is_empty() => {
                    namespaces.insert(prefix.to_owned(), uri.to_owned());
                    (format!("{prefix}:{local}"), false)
                }
                _ => (local.to_owned(), false),
            },
            None => (local.to_owned(), false),
        }
    };
    let (name, xacro) = qualify(node.tag_name().namespace(), node.tag_name().name());
    let attrs = node
        .attributes()
        .map(|a| {
            let (name, in_xacro) = qualify(a.namespace(), a.name());
            (if in_xacro { format!("xacro:{name}") } else { name }, a.value().to_owned())
        })
        .collect();
    let mut children = Vec::new();
    for child in node.children() {
        match child.node_type() {
            roxmltree::NodeType::Element => {
                children.push(Node::Element(element(doc, child, file, namespaces, (depth + 1, max_depth))?));
            }
            roxmltree::NodeType::Text => {
                if let Some(text) = child.text().filter(|t| !t.trim().is_empty()) {
                    children.push(Node::Text(text.to_owned()));
                }
            }
            _ => {}
        }
    }
    Ok(Element { name, xacro, attrs, children, pos })
}

/// The expanded file: its text, and for each of its lines (the first at index 0) the
/// place in the sources of the element written there.
#[derive(Clone, Debug, Default)]
pub struct Written {
    /// The URDF text.
    pub text: String,
    /// Where each line came from.
    pub lines: Vec<Position>,
}

/// Writes `root` (with the namespace declarations `namespaces`) as XML, one element a
/// line, so that every line maps back to one element of the sources.
pub(super) fn write(root: &Element, namespaces: &BTreeMap<String, String>) -> Written {
    let mut out = Written::default();
    out.lines.push(root.pos.clone());
    out.text.push_str("<?xml version=\"1.0\"?>");
    let mut root = root.clone();
    for (prefix, uri) in namespaces {
        root.attrs.push((format!("xmlns:{prefix}"), uri.clone()));
    }
    write_element(&root, 0, &mut out);
    out.text.push('\n');
    out
}

fn newline(out: &mut Written, pos: &Position, depth: usize) {
    out.text.push('\n');
    out.lines.push(pos.clone());
    out.text.extend(std::iter::repeat_n("  ", depth));
}

fn write_element(element: &Element, depth: usize, out: &mut Written) {
    newline(out, &element.pos, depth);
    out.text.push('<');
    out.text.push_str(&element.name);
    for (key, value) in &element.attrs {
        out.text.push(' ');
        out.text.push_str(key);
        out.text.push_str("=\"");
        escape(value, true, &mut out.text);
        out.text.push('"');
    }
    if element.children.is_empty() {
        out.text.push_str("/>");
        return;
    }
    out.text.push('>');
    let only_text = element.children.iter().all(|c| matches!(c, Node::Text(_)));
    for child in &element.children {
        match child {
            Node::Element(e) => write_element(e, depth + 1, out),
            Node::Text(t) => {
                let mut escaped = String::new();
                escape(t, false, &mut escaped);
                // Lines inside a text belong to its element.
                for _ in escaped.matches('\n') {
                    out.lines.push(element.pos.clone());
                }
                out.text.push_str(&escaped);
            }
        }
    }
    if !only_text {
        newline(out, &element.pos, depth);
    }
    out.text.push_str("</");
    out.text.push_str(&element.name);
    out.text.push('>');
}

fn escape(text: &str, attribute: bool, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\r' if attribute => out.push_str("&#13;"),
            '\t' if attribute => out.push_str("&#9;"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_keep_their_lines_and_are_written_one_a_line() {
        let file: Arc<str> = "bot.urdf.xacro".into();
        let text = "<robot name=\"r\" xmlns:xacro=\"http://www.ros.org/wiki/xacro\"\n       xmlns:sdf=\"http://sdformat.org\">\n  <!-- a comment -->\n  <link name=\"a &amp; b\"><visual/></link>\n  <xacro:property name=\"x\" value=\"1\"/>\n  <sdf:extra>text &lt; here\nand here</sdf:extra>\n</robot>\n";
        let parsed = parse(text, &file, 100).unwrap();
        let kinds: Vec<(&str, bool, u32)> =
            parsed.root.elements().map(|e| (e.name.as_str(), e.xacro, e.pos.line)).collect();
        assert_eq!(kinds, [("link", false, 4), ("property", true, 5), ("sdf:extra", false, 6)]);
        let written = write(&parsed.root, &parsed.namespaces);
        assert!(written.text.contains("<link name=\"a &amp; b\">"), "{}", written.text);
        assert!(written.text.contains("xmlns:sdf=\"http://sdformat.org\""), "{}", written.text);
        assert_eq!(written.text.lines().count(), written.lines.len(), "{}", written.text);
        let line_of = |needle: &str| written.text.lines().position(|l| l.contains(needle)).unwrap();
        assert_eq!(written.lines[line_of("<visual/>")].line, 4);
        assert_eq!(written.lines[line_of("and here")].line, 6);
        roxmltree::Document::parse(&written.text).expect("the output is well-formed");
    }

    #[test]
    fn broken_xml_is_refused_where_it_breaks() {
        let e = parse("<robot>\n<link>\n</robot>", &"f.xacro".into(), 100).err().unwrap();
        assert_eq!(e.pos.line, 3, "{e}");
        let deep = format!("<robot>\n{}{}</robot>", "<a>".repeat(100_000), "</a>".repeat(100_000));
        let e = parse(&deep, &"f.xacro".into(), 100).err().unwrap();
        assert!(e.to_string().contains("nest deeper than 100"), "{e}");
    }
}
