//! What a robot package picked as a zip holds, read from its central directory without
//! inflating anything: the paths the server will unpack and the robot file among them,
//! so the Add-robot form can write a description that imports it.

/// The paths of a zip's files as the server unpacks them: folders and macOS's
/// `__MACOSX/` copies left out, and the one top folder every file lives in taken off.
pub fn package_paths(zip: &[u8]) -> Result<Vec<String>, String> {
    let mut paths: Vec<String> =
        entry_names(zip)?.into_iter().filter(|name| !name.ends_with('/') && !name.starts_with("__MACOSX/")).collect();
    if let Some(top) = paths.first().and_then(|p| p.split_once('/')).map(|(top, _)| format!("{top}/"))
        && paths.iter().all(|p| p.starts_with(&top))
    {
        paths.iter_mut().for_each(|p| *p = p[top.len()..].to_owned());
    }
    Ok(paths)
}

/// Name parts of the files a package's robot includes (its shared properties, macros,
/// materials, Gazebo tags), never the robot itself.
const INCLUDED_NAME_PARTS: [&str; 5] = ["common", "propert", "macro", "material", "gazebo"];

/// The files that may be the package's robot, the likeliest first: `.urdf`, then
/// `.urdf.xacro`, then other `.xacro` files, leaving out what reads as an included file.
pub fn robot_files(paths: &[String]) -> Vec<String> {
    let stem = |p: &str| p.rsplit('/').next().unwrap_or(p).to_ascii_lowercase();
    let rank = |p: &str| {
        let lower = p.to_ascii_lowercase();
        if lower.ends_with(".urdf") {
            Some(0)
        } else if lower.ends_with(".urdf.xacro") {
            Some(1)
        } else if lower.ends_with(".xacro") {
            Some(2)
        } else {
            None
        }
    };
    let mut found: Vec<(u8, &String)> = paths
        .iter()
        .filter(|p| !INCLUDED_NAME_PARTS.iter().any(|part| stem(p).contains(part)))
        .filter_map(|p| Some((rank(p)?, p)))
        .collect();
    found.sort();
    found.into_iter().map(|(_, p)| p.clone()).collect()
}

/// End of central directory: its signature and its fixed length.
const END_SIGNATURE: u32 = 0x0605_4b50;
const END_LENGTH: usize = 22;
/// A central directory entry: its signature and where its name's length lies.
const ENTRY_SIGNATURE: u32 = 0x0201_4b50;
const ENTRY_LENGTH: usize = 46;

/// The names a zip's central directory lists, in its order.
fn entry_names(zip: &[u8]) -> Result<Vec<String>, String> {
    let not_zip = || "this file is not a zip archive (or it is damaged)".to_owned();
    // The end record sits in the last 22 bytes plus a comment of at most 65,535.
    let earliest = zip.len().saturating_sub(END_LENGTH + u16::MAX as usize);
    let end = (earliest..=zip.len().saturating_sub(END_LENGTH))
        .rev()
        .find(|&at| u32_at(zip, at) == Some(END_SIGNATURE))
        .ok_or_else(not_zip)?;
    let count = u16_at(zip, end + 10).ok_or_else(not_zip)? as usize;
    let mut at = u32_at(zip, end + 16).ok_or_else(not_zip)? as usize;
    if at == u32::MAX as usize {
        return Err("this zip is in the zip64 format: zip it again without zip64".into());
    }
    let mut names = Vec::with_capacity(count.min(1024));
    for _ in 0..count {
        if u32_at(zip, at) != Some(ENTRY_SIGNATURE) {
            return Err(not_zip());
        }
        let name_length = u16_at(zip, at + 28).ok_or_else(not_zip)? as usize;
        let extra = u16_at(zip, at + 30).ok_or_else(not_zip)? as usize;
        let comment = u16_at(zip, at + 32).ok_or_else(not_zip)? as usize;
        let name = zip.get(at + ENTRY_LENGTH..at + ENTRY_LENGTH + name_length).ok_or_else(not_zip)?;
        names.push(String::from_utf8_lossy(name).into_owned());
        at += ENTRY_LENGTH + name_length + extra + comment;
    }
    Ok(names)
}

fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stored (uncompressed) zip of `names`, each holding its own name, written by hand
    /// as the format says, with a comment after the end record.
    fn zip_of(names: &[&str]) -> Vec<u8> {
        let (mut out, mut central) = (Vec::new(), Vec::new());
        for name in names {
            let offset = out.len() as u32;
            out.extend(0x0403_4b50u32.to_le_bytes());
            out.extend([0u8; 22]);
            out.extend((name.len() as u16).to_le_bytes());
            out.extend(0u16.to_le_bytes());
            out.extend(name.as_bytes());
            out.extend(name.as_bytes());
            central.extend(ENTRY_SIGNATURE.to_le_bytes());
            central.extend([0u8; 24]);
            central.extend((name.len() as u16).to_le_bytes());
            central.extend([0u8; 12]);
            central.extend(offset.to_le_bytes());
            central.extend(name.as_bytes());
        }
        let start = out.len() as u32;
        out.extend(&central);
        out.extend(END_SIGNATURE.to_le_bytes());
        out.extend([0u8; 6]);
        out.extend((names.len() as u16).to_le_bytes());
        out.extend((central.len() as u32).to_le_bytes());
        out.extend(start.to_le_bytes());
        out.extend(3u16.to_le_bytes());
        out.extend(b"hi!");
        out
    }

    #[test]
    fn a_package_lists_its_files_without_its_top_folder() {
        let zip = zip_of(&[
            "turtlebot3_description/",
            "turtlebot3_description/urdf/common_properties.urdf",
            "turtlebot3_description/urdf/turtlebot3_waffle.urdf",
            "turtlebot3_description/urdf/turtlebot3_burger.urdf",
            "turtlebot3_description/meshes/bases/burger_base.stl",
            "__MACOSX/turtlebot3_description/._package.xml",
        ]);
        let paths = package_paths(&zip).unwrap();
        assert_eq!(
            paths,
            [
                "urdf/common_properties.urdf",
                "urdf/turtlebot3_waffle.urdf",
                "urdf/turtlebot3_burger.urdf",
                "meshes/bases/burger_base.stl"
            ]
        );
        assert_eq!(robot_files(&paths), ["urdf/turtlebot3_burger.urdf", "urdf/turtlebot3_waffle.urdf"]);
    }

    #[test]
    fn xacro_robots_come_after_urdf_ones_and_included_files_never() {
        let paths: Vec<String> =
            ["a/robot.xacro", "a/arm.urdf.xacro", "a/arm_macros.xacro", "a/materials.xacro", "a/gazebo.xacro"]
                .map(String::from)
                .to_vec();
        assert_eq!(robot_files(&paths), ["a/arm.urdf.xacro", "a/robot.xacro"]);
    }

    #[test]
    fn what_is_not_a_zip_is_said_so() {
        assert!(package_paths(b"<robot/>").unwrap_err().contains("not a zip"));
        let mut cut = zip_of(&["a/b.urdf"]);
        // The central entry's name length, past the end of the file.
        let name_length = cut.len() - 25 - (ENTRY_LENGTH + "a/b.urdf".len()) + 28;
        cut[name_length..name_length + 2].copy_from_slice(&u16::MAX.to_le_bytes());
        assert!(package_paths(&cut).unwrap_err().contains("damaged"));
    }
}
