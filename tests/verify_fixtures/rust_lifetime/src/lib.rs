//! A version parser in the style of the `semver` crate: the extract of lines 27-36 (the build
//! metadata) makes rust-analyzer write a function that returns a borrowed `&str` from two
//! borrowed parameters, which fails `cargo check` with E0106.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    Major,
    Build,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Error {
    Empty,
    EmptySegment(Position),
    UnexpectedChar(Position, char),
}

pub fn parse(text: &str) -> Result<(u64, String), Error> {
    if text.is_empty() {
        return Err(Error::Empty);
    }
    let mut pos = Position::Major;
    let (major, text) = numeric(text, pos)?;

    let (build, text) = if let Some(text) = text.strip_prefix('+') {
        pos = Position::Build;
        let (build, text) = identifier(text);
        if build.is_empty() {
            return Err(Error::EmptySegment(pos));
        }
        (build, text)
    } else {
        (String::new(), text)
    };

    if let Some(unexpected) = text.chars().next() {
        return Err(Error::UnexpectedChar(pos, unexpected));
    }
    Ok((major, build))
}

fn numeric(text: &str, pos: Position) -> Result<(u64, &str), Error> {
    let end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    match text[..end].parse() {
        Ok(value) => Ok((value, &text[end..])),
        Err(_) => Err(Error::EmptySegment(pos)),
    }
}

fn identifier(text: &str) -> (String, &str) {
    let end = text
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '.')
        .unwrap_or(text.len());
    (text[..end].to_string(), &text[end..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_build_metadata() {
        assert_eq!(parse("12+abc.1"), Ok((12, "abc.1".to_string())));
        assert_eq!(parse("3"), Ok((3, String::new())));
        assert_eq!(parse("3+"), Err(Error::EmptySegment(Position::Build)));
        assert_eq!(parse("3x"), Err(Error::UnexpectedChar(Position::Major, 'x')));
    }
}
