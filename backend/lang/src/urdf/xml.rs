//! The URDF file as an XML tree: well-formedness and xacro refused with their line,
//! and the line of any `<link>`, `<joint>` or element, so every later message points
//! into the file (or, for a file expanded from xacro, into the xacro sources).

use std::sync::Arc;

use crate::error::{ErrorKind, LangError, Position};

/// The parsed document and the file's name, for positions.
pub(super) struct Doc<'a> {
    /// The tree.
    pub doc: roxmltree::Document<'a>,
    /// The file as the library names it.
    pub file: Arc<str>,
    /// For a file expanded from xacro: where each of its lines came from.
    pub sources: Option<Vec<Position>>,
}

/// Reads `text` as XML whose root is `<robot>`, refusing xacro macros; `sources` maps
/// its lines to the xacro sources it was expanded from, if it was.
pub(super) fn read<'a>(text: &'a str, file: &str, sources: Option<Vec<Position>>) -> Result<Doc<'a>, LangError> {
    let file: Arc<str> = file.into();
    let options = roxmltree::ParsingOptions { allow_dtd: false, ..roxmltree::ParsingOptions::default() };
    let doc = roxmltree::Document::parse_with_options(text, options).map_err(|e| {
        let at = e.pos();
        LangError::new(
            source_of(sources.as_deref(), Position { file: file.clone(), line: at.row, col: at.col }),
            ErrorKind::Syntax(format!("the URDF is not well-formed XML: {e}")),
        )
    })?;
    let out = Doc { doc, file, sources };
    if let Some(node) = out.doc.descendants().find(|n| n.is_element() && is_xacro(n)) {
        return Err(out.error(
            node,
            format!(
                "<{}> is a xacro macro: expand the file first (xacro robot.urdf.xacro > robot.urdf) and upload the result",
                qualified(&node)
            ),
        ));
    }
    let root = out.doc.root_element();
    if root.tag_name().name() != "robot" {
        return Err(out.error(root, format!("a URDF file's root element is <robot>, not <{}>", root.tag_name().name())));
    }
    Ok(out)
}

/// Where `at` (in the text read) was written: itself, or for an expanded xacro file, the
/// element its line came from.
fn source_of(sources: Option<&[Position]>, at: Position) -> Position {
    match sources.and_then(|lines| lines.get(at.line.saturating_sub(1) as usize)) {
        Some(source) => source.clone(),
        None => at,
    }
}

fn is_xacro(node: &roxmltree::Node<'_, '_>) -> bool {
    node.tag_name().namespace().is_some_and(|ns| ns.contains("xacro")) || node.tag_name().name().starts_with("xacro:")
}

fn qualified(node: &roxmltree::Node<'_, '_>) -> String {
    match node.tag_name().namespace() {
        Some(_) => format!("xacro:{}", node.tag_name().name()),
        None => node.tag_name().name().to_owned(),
    }
}

impl Doc<'_> {
    /// Where `node` starts.
    pub fn pos(&self, node: roxmltree::Node<'_, '_>) -> Position {
        let at = self.doc.text_pos_at(node.range().start);
        source_of(self.sources.as_deref(), Position { file: self.file.clone(), line: at.row, col: at.col })
    }

    /// An error at `node`.
    pub fn error(&self, node: roxmltree::Node<'_, '_>, message: String) -> LangError {
        LangError::new(self.pos(node), ErrorKind::Value(message))
    }

    /// The top-level `<tag name="name">` element.
    pub fn named(&self, tag: &str, name: &str) -> Option<roxmltree::Node<'_, '_>> {
        self.doc.root_element().children().find(|n| n.has_tag_name(tag) && n.attribute("name") == Some(name))
    }

    /// Where the top-level `<tag name="name">` starts, else the root's start.
    pub fn pos_of(&self, tag: &str, name: &str) -> Position {
        self.pos(self.named(tag, name).unwrap_or_else(|| self.doc.root_element()))
    }
}

/// The text of `node`'s child element `tag`, trimmed.
pub(super) fn child_text<'a>(node: roxmltree::Node<'a, '_>, tag: &str) -> Option<&'a str> {
    node.children().find(|c| c.has_tag_name(tag)).and_then(|c| c.text()).map(str::trim)
}

/// The number in `node`'s first descendant at `path` (`["ray", "scan", "horizontal", "samples"]`).
pub(super) fn number_at(node: roxmltree::Node<'_, '_>, path: &[&str]) -> Option<f64> {
    let mut at = node;
    for tag in path {
        at = at.children().find(|c| c.has_tag_name(*tag))?;
    }
    at.text()?.trim().parse::<f64>().ok().filter(|n| n.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broken_xml_and_xacro_are_refused_at_their_line() {
        let broken = "<robot name=\"r\">\n  <link name=\"a\">\n</robot>\n";
        let e = read(broken, "bot.urdf", None).err().unwrap();
        assert_eq!((e.pos.file.as_ref(), e.pos.line), ("bot.urdf", 3), "{e}");
        let xacro = "<robot name=\"r\" xmlns:xacro=\"http://www.ros.org/wiki/xacro\">\n\n  <xacro:property name=\"w\" value=\"1\"/>\n</robot>";
        let e = read(xacro, "bot.urdf", None).err().unwrap();
        assert_eq!(e.pos.line, 3);
        assert!(e.to_string().contains("expand the file first"), "{e}");
        let e = read("<sdf/>", "x.urdf", None).err().unwrap();
        assert!(e.to_string().contains("root element is <robot>"), "{e}");
    }

    #[test]
    fn elements_are_found_by_name_with_their_line() {
        let doc =
            read("<robot name=\"r\">\n<link name=\"a\"/>\n<joint name=\"j\" type=\"fixed\"/>\n</robot>", "f", None)
                .unwrap();
        assert_eq!(doc.pos_of("joint", "j").line, 3);
        assert_eq!(doc.pos_of("link", "missing").line, 1);
    }
}
