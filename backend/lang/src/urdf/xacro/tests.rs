//! Expansions as ROS packages write them, and the files a hostile student could write.

use super::*;
use crate::loader::MapLoader;

const NS: &str = "xmlns:xacro=\"http://ros.org/wiki/xacro\"";

fn run(text: &str, loader: &MapLoader) -> Result<String, LangError> {
    expand(text, "urdf/bot.urdf.xacro", loader, &XacroArgs::new(), Limits::default()).map(|w| w.text)
}

fn robot(body: &str) -> String {
    format!("<?xml version=\"1.0\"?>\n<robot name=\"bot\" {NS}>\n{body}\n</robot>\n")
}

#[test]
fn properties_args_and_math_are_substituted() {
    let text = robot(
        "<xacro:arg name=\"namespace\" default=\"\"/>\n\
         <xacro:property name=\"namespace\" value=\"$(arg namespace)\"/>\n\
         <xacro:property name=\"radius\" value=\"0.033\"/>\n\
         <link name=\"${namespace}wheel\"><visual><geometry><cylinder radius=\"${radius}\" length=\"${radius * 2}\"/></geometry>\
         <origin rpy=\"${-pi/2} 0 0\"/></visual></link>",
    );
    let out = run(&text, &MapLoader::new()).unwrap();
    assert!(out.contains("<link name=\"wheel\">"), "{out}");
    assert!(out.contains("radius=\"0.033\" length=\"0.066\""), "{out}");
    assert!(out.contains(&format!("rpy=\"{} 0 0\"", -std::f64::consts::FRAC_PI_2)), "{out}");
    assert!(!out.contains("xacro"), "no xacro is left: {out}");

    let args = XacroArgs::from([("namespace".to_owned(), "tb3_".to_owned())]);
    let given = expand(&text, "bot.urdf.xacro", &MapLoader::new(), &args, Limits::default()).unwrap();
    assert!(given.text.contains("<link name=\"tb3_wheel\">"), "{}", given.text);
}

#[test]
fn macros_take_values_defaults_and_blocks() {
    let text = robot(
        "<xacro:macro name=\"wheel\" params=\"side y:=0.08 *origin\">\n\
           <link name=\"wheel_${side}_link\"/>\n\
           <joint name=\"wheel_${side}_joint\" type=\"continuous\">\n\
             <xacro:insert_block name=\"origin\"/>\n\
             <child link=\"wheel_${side}_link\"/>\n\
           </joint>\n\
         </xacro:macro>\n\
         <xacro:wheel side=\"left\"><origin xyz=\"0 0.08 0\"/></xacro:wheel>\n\
         <xacro:call macro=\"wheel\" side=\"right\" y=\"-0.08\"><origin xyz=\"0 -0.08 0\"/></xacro:call>",
    );
    let out = run(&text, &MapLoader::new()).unwrap();
    assert!(out.contains("<link name=\"wheel_left_link\"/>"), "{out}");
    assert!(out.contains("<origin xyz=\"0 -0.08 0\"/>"), "{out}");
    assert_eq!(out.matches("<joint ").count(), 2, "{out}");
}

#[test]
fn conditionals_choose_what_is_written() {
    let text = robot(
        "<xacro:arg name=\"lidar\" default=\"true\"/>\n\
         <xacro:property name=\"camera\" value=\"false\"/>\n\
         <xacro:if value=\"$(arg lidar)\"><link name=\"scan\"/></xacro:if>\n\
         <xacro:if value=\"${camera}\"><link name=\"camera\"/></xacro:if>\n\
         <xacro:unless value=\"${camera}\"><link name=\"no_camera\"/></xacro:unless>\n\
         <xacro:if value=\"${1 + 1 == 2}\"><link name=\"math\"/></xacro:if>",
    );
    let out = run(&text, &MapLoader::new()).unwrap();
    assert!(out.contains("\"scan\"") && out.contains("\"no_camera\"") && out.contains("\"math\""), "{out}");
    assert!(!out.contains("\"camera\""), "{out}");
}

#[test]
fn includes_come_from_the_upload_and_find_names_the_package() {
    let common = format!(
        "<robot {NS}>\n  <xacro:property name=\"mass\" value=\"0.5\"/>\n  <xacro:macro name=\"box_link\" params=\"name\">\n    <link name=\"${{name}}\"><inertial><mass value=\"${{mass}}\"/></inertial></link>\n  </xacro:macro>\n</robot>"
    );
    let loader = MapLoader::new().with_file("urdf/common.xacro", &common);
    let text = robot(
        "<xacro:include filename=\"$(find bot_description)/urdf/common.xacro\"/>\n\
         <xacro:include filename=\"common.xacro\"/>\n\
         <xacro:box_link name=\"base\"/>\n\
         <link name=\"mesh\"><visual><geometry><mesh filename=\"$(find bot_description)/meshes/base.stl\"/></geometry></visual></link>",
    );
    let out = run(&text, &loader).unwrap();
    assert!(out.contains("<link name=\"base\">") && out.contains("<mass value=\"0.5\"/>"), "{out}");
    assert!(out.contains("filename=\"package://bot_description/meshes/base.stl\""), "{out}");
}

#[test]
fn errors_point_at_the_line_that_caused_them_in_the_file_that_has_it() {
    let loader = MapLoader::new()
        .with_file("urdf/parts.xacro", &format!("<robot {NS}>\n\n  <link name=\"${{missing * 2}}\"/>\n</robot>"));
    let e = run(&robot("<xacro:include filename=\"parts.xacro\"/>"), &loader).unwrap_err();
    assert_eq!((e.pos.file.as_ref(), e.pos.line), ("urdf/parts.xacro", 3), "{e}");
    assert!(e.to_string().contains("unknown property 'missing'"), "{e}");

    let cases = [
        ("<xacro:wheel side=\"left\"/>", "no macro 'wheel'"),
        ("<xacro:macro name=\"m\" params=\"a\"/>\n<xacro:m/>", "needs 'a'"),
        ("<xacro:macro name=\"m\" params=\"a\"/>\n<xacro:m a=\"1\" b=\"2\"/>", "no parameter 'b'"),
        ("<xacro:include filename=\"gone.xacro\"/>", "cannot include 'gone.xacro'"),
        ("<xacro:include filename=\"../../etc/passwd\"/>", "outside the scene library"),
        ("<xacro:if value=\"maybe\"/>", "true or false"),
        ("<xacro:arg name=\"x\"/>", "no default"),
        ("<link name=\"$(arg nope)\"/>", "no arg 'nope'"),
        ("<link name=\"$(env HOME)\"/>", "the server's is not yours"),
        ("<xacro:element xacro:name=\"link\"/>", "not supported"),
        ("<link name=\"${1 +}\"/>", "in ${1 +}"),
    ];
    for (body, expected) in cases {
        let text = robot(body);
        let e = run(&text, &MapLoader::new()).unwrap_err();
        assert!(e.to_string().contains(expected), "{body}: {e}");
        let line = text.lines().position(|l| l.contains(body.lines().last().unwrap())).unwrap() as u32 + 1;
        assert_eq!(e.pos.line, line, "{body}: {e}");
    }
}

#[test]
fn the_written_lines_map_back_to_the_sources() {
    let text = robot(
        "<xacro:macro name=\"leg\" params=\"n\">\n  <link name=\"leg${n}\"/>\n</xacro:macro>\n<xacro:leg n=\"1\"/>\n<xacro:leg n=\"2\"/>\n<joint name=\"j\"/>",
    );
    let written = expand(&text, "bot.urdf.xacro", &MapLoader::new(), &XacroArgs::new(), Limits::default()).unwrap();
    let line_of = |needle: &str| written.lines[written.text.lines().position(|l| l.contains(needle)).unwrap()].line;
    assert_eq!(line_of("leg1"), 4, "a macro's elements are where the macro writes them");
    assert_eq!(line_of("leg2"), 4);
    assert_eq!(line_of("<joint"), 8);
}

#[test]
fn endless_and_exploding_expansions_stop_with_an_error() {
    let endless = robot("<xacro:macro name=\"m\" params=\"\"><xacro:m/></xacro:macro>\n<xacro:m/>");
    let e = run(&endless, &MapLoader::new()).unwrap_err();
    assert!(e.to_string().contains("nest deeper"), "{e}");

    // Each call makes two: 2^40 links if nothing stopped it.
    let doubling = robot(
        "<xacro:macro name=\"m\" params=\"n\"><xacro:if value=\"${n > 0}\"><link name=\"l${n}\"/><xacro:m n=\"${n-1}\"/><xacro:m n=\"${n-1}\"/></xacro:if></xacro:macro>\n<xacro:m n=\"40\"/>",
    );
    let e = run(&doubling, &MapLoader::new()).unwrap_err();
    assert!(e.to_string().contains("ran past") || e.to_string().contains("grew past"), "{e}");

    let growing = robot(
        "<xacro:property name=\"s\" value=\"ab\"/>\n<xacro:macro name=\"m\" params=\"n\"><xacro:property name=\"s\" value=\"${s + s}\" scope=\"global\"/><xacro:if value=\"${n > 0}\"><xacro:m n=\"${n-1}\"/></xacro:if></xacro:macro>\n<xacro:m n=\"60\"/>",
    );
    let e = run(&growing, &MapLoader::new()).unwrap_err();
    assert!(e.to_string().contains("grew past"), "{e}");

    let looping = MapLoader::new()
        .with_file("urdf/a.xacro", &format!("<robot {NS}><xacro:include filename=\"bot.urdf.xacro\"/></robot>"));
    let looping = looping.with_file("urdf/bot.urdf.xacro", &robot("<xacro:include filename=\"a.xacro\"/>"));
    let e = run(&robot("<xacro:include filename=\"a.xacro\"/>"), &looping).unwrap_err();
    assert!(e.to_string().contains("includes itself"), "{e}");
}

#[test]
fn xacro_files_are_told_from_plain_urdf() {
    assert!(is_xacro(&robot("")));
    assert!(!is_xacro("<robot name=\"r\"><link name=\"a\"/></robot>"));
    assert!(!is_xacro("not xml"));
}

#[test]
fn an_imported_xacro_robot_has_its_urdf_errors_at_their_xacro_line() {
    let text = robot(
        "<link name=\"a\"/>\n<link name=\"b\"/>\n<xacro:macro name=\"j\" params=\"n\">\n  <joint name=\"${n}\" type=\"hinge\"><parent link=\"a\"/><child link=\"b\"/></joint>\n</xacro:macro>\n<xacro:j n=\"j1\"/>",
    );
    let placement = crate::model::Pose::IDENTITY;
    let e = crate::urdf::import(&text, "bot.urdf.xacro", &MapLoader::new(), &placement, &[]).unwrap_err();
    assert_eq!((e.pos.file.as_ref(), e.pos.line), ("bot.urdf.xacro", 6), "{e}");
    assert!(e.to_string().contains("hinge"), "{e}");

    let fine = text
        .replace("hinge", "continuous")
        .replace("<joint ", "<joint ")
        .replace("</joint>", "<axis xyz=\"0 1 0\"/></joint>");
    let imported = crate::urdf::import(&fine, "bot.urdf.xacro", &MapLoader::new(), &placement, &[]).unwrap();
    assert_eq!(imported.joints[0].name, "j1");
    assert_eq!(imported.joints[0].pos.line, 6);
}
