//! Running the scene interpreter on an upload (off the async threads), and pointing
//! what goes wrong at a place in its files.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;
use vlab_protocol::SourceMessage;

use super::bundle::Bundle;
use vlab_sim::scene::{DirLoader, Interpretation, LoadError, Options, SceneError, SourceLoader, interpret};

/// Resolves includes and meshes in the upload first, then in the server's library.
pub struct BundleLoader<'a> {
    /// Text files of the upload, by name.
    pub files: &'a HashMap<String, String>,
    /// Meshes and textures of the upload, by name.
    pub assets: &'a HashMap<String, Bytes>,
    /// The server's library.
    pub library: DirLoader,
}

impl SourceLoader for BundleLoader<'_> {
    fn load(&self, name: &str) -> Result<String, LoadError> {
        match self.files.get(name) {
            Some(text) => Ok(text.clone()),
            None => self.library.load(name),
        }
    }

    fn asset_exists(&self, name: &str) -> Option<bool> {
        if self.assets.contains_key(name) { Some(true) } else { self.library.asset_exists(name) }
    }

    fn asset_bytes(&self, name: &str) -> Option<Vec<u8>> {
        match (self.assets.get(name), self.files.get(name)) {
            (Some(bytes), _) => Some(bytes.to_vec()),
            // A text mesh (a COLLADA file) that came as a text file.
            (None, Some(text)) => Some(text.as_bytes().to_vec()),
            (None, None) => self.library.asset_bytes(name),
        }
    }
}

/// Interprets the bundle's main file with `seed`; errors come back positioned.
pub async fn run(bundle: Arc<Bundle>, library: DirLoader, seed: u64) -> Result<Interpretation, Vec<SourceMessage>> {
    let result = tokio::task::spawn_blocking(move || {
        let loader = BundleLoader { files: &bundle.files, assets: &bundle.assets, library };
        interpret(&bundle.main_text, &bundle.main_name, &loader, &Options { seed, ..Options::default() })
    })
    .await;
    match result {
        Ok(Ok(interpretation)) => Ok(interpretation),
        Ok(Err(errors)) => Err(errors
            .iter()
            .map(|e| SourceMessage {
                file: e.pos.file.to_string(),
                line: e.pos.line,
                col: e.pos.col,
                message: e.kind.to_string(),
            })
            .collect()),
        Err(e) => Err(vec![SourceMessage {
            file: String::new(),
            line: 1,
            col: 1,
            message: format!("the scene interpreter stopped: {e}"),
        }]),
    }
}

/// The interpreter's warnings as positioned messages.
pub fn warnings(interpretation: &Interpretation) -> Vec<SourceMessage> {
    interpretation
        .warnings
        .iter()
        .map(|w| SourceMessage {
            file: w.pos.file.to_string(),
            line: w.pos.line,
            col: w.pos.col,
            message: w.message.clone(),
        })
        .collect()
}

/// Points a lab-level error at the place in the upload it concerns: the first mention
/// of the clashing name, or of `environment`; else the start of the main file.
pub fn position_of(error: &SceneError, bundle: &Bundle) -> SourceMessage {
    let needle = match error {
        SceneError::NameTaken(name) => Some(name.as_str()),
        SceneError::EnvironmentAlreadySet => Some("environment"),
        _ => None,
    };
    let mut files: Vec<(&String, &String)> = vec![(&bundle.main_name, &bundle.main_text)];
    files.extend(bundle.files.iter());
    let found = needle.and_then(|needle| {
        files.iter().find_map(|(name, text)| find_word(text, needle).map(|(line, col)| ((*name).clone(), line, col)))
    });
    let (file, line, col) = found.unwrap_or_else(|| (bundle.main_name.clone(), 1, 1));
    SourceMessage { file, line, col, message: error.to_string() }
}

/// 1-based line and column (in characters) of the first whole-word occurrence.
pub fn find_word(text: &str, word: &str) -> Option<(u32, u32)> {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    for (line_index, line) in text.lines().enumerate() {
        let mut from = 0;
        while let Some(offset) = line[from..].find(word) {
            let start = from + offset;
            let end = start + word.len();
            let before_ok = line[..start].chars().next_back().is_none_or(|c| !is_word(c));
            let after_ok = line[end..].chars().next().is_none_or(|c| !is_word(c));
            if before_ok && after_ok {
                return Some((line_index as u32 + 1, line[..start].chars().count() as u32 + 1));
            }
            from = end;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_found_whole_with_one_based_positions() {
        let text = "box b1 {}\n  box b { pos(0,0,0); }\n";
        assert_eq!(find_word(text, "b"), Some((2, 7)));
        assert_eq!(find_word(text, "b1"), Some((1, 5)));
        assert_eq!(find_word(text, "zzz"), None);
    }
}
