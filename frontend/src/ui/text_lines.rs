//! A text's lines as the code editor counts and measures them: its gutter, its width, and the line an error points at.

/// Lines in `text` as an editor counts them: an empty text has one, a final newline starts another.
pub fn line_count(text: &str) -> usize {
    text.split('\n').count()
}

/// Characters in the longest line (to size the editor's width).
pub fn longest_line_chars(text: &str) -> usize {
    text.split('\n').map(|line| line.chars().count()).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_lines_and_widths_like_an_editor() {
        assert_eq!(line_count(""), 1);
        assert_eq!(line_count("a\nb"), 2);
        assert_eq!(line_count("a\nb\n"), 3);
        assert_eq!(longest_line_chars("ab\nçççç\n"), 4);
    }
}
