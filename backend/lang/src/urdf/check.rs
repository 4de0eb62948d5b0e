//! The checks made on the XML tree before the typed reader sees it, so that what it
//! would refuse without a line is refused here at the element: names, joint types and
//! their links, numbers in `xyz`, `rpy`, sizes and limits, one shape per `<geometry>`.

use super::xml::Doc;
use crate::error::LangError;

const JOINT_TYPES: [&str; 7] = ["revolute", "continuous", "prismatic", "fixed", "floating", "planar", "spherical"];
const SHAPES: [&str; 5] = ["box", "cylinder", "sphere", "mesh", "capsule"];

/// Refuses the first element the typed reader could not read, at its line.
pub(super) fn elements(doc: &Doc<'_>) -> Result<(), LangError> {
    let root = doc.doc.root_element();
    if root.attribute("name").is_none() {
        return Err(doc.error(root, "<robot> needs a name=\"...\"".into()));
    }
    let mut links = std::collections::HashSet::new();
    for node in root.children().filter(|n| n.is_element()) {
        match node.tag_name().name() {
            "link" => {
                let name =
                    node.attribute("name").ok_or_else(|| doc.error(node, "<link> needs a name=\"...\"".into()))?;
                if !links.insert(name) {
                    return Err(doc.error(node, format!("the link name '{name}' is used twice")));
                }
            }
            "joint" => {
                let name =
                    node.attribute("name").ok_or_else(|| doc.error(node, "<joint> needs a name=\"...\"".into()))?;
                let kind = node.attribute("type").unwrap_or_default();
                if !JOINT_TYPES.contains(&kind) {
                    return Err(doc.error(
                        node,
                        format!("joint '{name}' has type '{kind}': a URDF joint is one of {}", JOINT_TYPES.join(", ")),
                    ));
                }
                for end in ["parent", "child"] {
                    let found = node.children().find(|c| c.has_tag_name(end)).and_then(|c| c.attribute("link"));
                    if found.is_none() {
                        return Err(doc.error(node, format!("joint '{name}' needs <{end} link=\"...\"/>")));
                    }
                }
            }
            _ => {}
        }
    }
    for node in root.descendants().filter(|n| n.is_element()) {
        let tag = node.tag_name().name();
        let numbers = |attr: &str, count: usize| -> Result<(), LangError> {
            let Some(text) = node.attribute(attr) else { return Ok(()) };
            let parsed: Vec<Option<f64>> = text.split_whitespace().map(|w| w.parse::<f64>().ok()).collect();
            if parsed.len() != count || parsed.iter().any(|p| !p.is_some_and(f64::is_finite)) {
                let what = if count == 1 { "a number".to_owned() } else { format!("{count} numbers") };
                return Err(doc.error(node, format!("{attr}=\"{text}\" of <{tag}> must be {what}")));
            }
            Ok(())
        };
        let in_gazebo = node.ancestors().any(|a| a.has_tag_name("gazebo"));
        if in_gazebo {
            continue;
        }
        match tag {
            "origin" => {
                numbers("xyz", 3)?;
                numbers("rpy", 3)?;
            }
            "axis" => numbers("xyz", 3)?,
            "box" => numbers("size", 3)?,
            "mesh" => numbers("scale", 3)?,
            "color" => numbers("rgba", 4)?,
            "cylinder" | "sphere" | "capsule" => {
                numbers("radius", 1)?;
                numbers("length", 1)?;
            }
            "limit" => {
                for attr in ["lower", "upper", "effort", "velocity"] {
                    numbers(attr, 1)?;
                }
            }
            "mass" => numbers("value", 1)?,
            "geometry" => {
                let shapes: Vec<&str> =
                    node.children().filter(|c| c.is_element()).map(|c| c.tag_name().name()).collect();
                if shapes.len() != 1 || !SHAPES.contains(&shapes[0]) {
                    return Err(doc.error(
                        node,
                        format!("<geometry> holds one of {}, found {}", SHAPES.join(", "), describe(&shapes)),
                    ));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn describe(tags: &[&str]) -> String {
    if tags.is_empty() {
        "nothing".into()
    } else {
        tags.iter().map(|t| format!("<{t}>")).collect::<Vec<_>>().join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::super::xml::read;
    use super::*;

    fn refused(text: &str) -> LangError {
        elements(&read(text, "bot.urdf", None).unwrap()).expect_err("refused")
    }

    #[test]
    fn bad_numbers_types_and_shapes_are_refused_at_their_element() {
        let e = refused(
            "<robot name=\"r\">\n<link name=\"a\">\n<visual><origin xyz=\"0 zero 0\"/></visual></link></robot>",
        );
        assert_eq!(e.pos.line, 3);
        assert!(e.to_string().contains("xyz=\"0 zero 0\" of <origin> must be 3 numbers"), "{e}");
        let e = refused("<robot name=\"r\"><link name=\"a\"/>\n<joint name=\"j\" type=\"hinge\"/></robot>");
        assert_eq!(e.pos.line, 2);
        assert!(e.to_string().contains("type 'hinge'"), "{e}");
        let e = refused(
            "<robot name=\"r\"><link name=\"a\"><collision>\n<geometry><cone/></geometry></collision></link></robot>",
        );
        assert!(e.to_string().contains("found <cone>"), "{e}");
        let e = refused("<robot name=\"r\"><link name=\"a\"/>\n\n<link name=\"a\"/></robot>");
        assert_eq!((e.pos.line, e.to_string().contains("used twice")), (3, true));
    }
}
