//! Python module names from file paths (`pkg/util.py` is `pkg.util`, a package's `__init__.py`
//! is the package), and whether the module an import names is a given file's module.

/// The dotted module path of a file from the project root: `pkg/util.py` → `pkg.util`,
/// `pkg/__init__.py` → `pkg`, as parts.
pub fn module_parts(path: &str) -> Vec<String> {
    let mut parts: Vec<String> = path.split('/').map(str::to_string).collect();
    if let Some(last) = parts.last_mut()
        && let Some((stem, _)) = last.rsplit_once('.')
    {
        *last = stem.to_string();
    }
    if parts.last().is_some_and(|l| l == "__init__") {
        parts.pop();
    }
    parts
}

/// The dotted name a module file is imported by: `pkg.recipes` for `pkg/recipes.py` (and
/// `src/pkg/recipes.py`), `pkg` for `pkg/__init__.py`.
pub fn dotted_module(path: &str) -> String {
    module_parts(path.strip_prefix("src/").unwrap_or(path)).join(".")
}

/// Whether `module` as written in an import of `importer` (`pkg.util`, `.util`, `.`) names
/// the module whose parts are `target`. Absolute imports match on their trailing parts (the
/// import root depends on `sys.path`); relative ones resolve from the importer's package.
pub fn import_names_module(module: &str, importer: &str, target: &[String]) -> bool {
    let module = module.trim();
    let dots = module.len() - module.trim_start_matches('.').len();
    let rest: Vec<&str> = module[dots..]
        .split('.')
        .filter(|s| !s.is_empty())
        .collect();
    if dots == 0 {
        return !rest.is_empty()
            && target.len() >= rest.len()
            && target[target.len() - rest.len()..]
                .iter()
                .zip(&rest)
                .all(|(a, b)| a == b);
    }
    let mut base: Vec<String> = importer.split('/').map(str::to_string).collect();
    base.pop(); // the importer's own file: its package is its directory
    for _ in 1..dots {
        if base.pop().is_none() {
            return false;
        }
    }
    base.extend(rest.iter().map(|s| s.to_string()));
    base == target
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_name_modules_by_path() {
        let util = module_parts("src/pkg/util.py");
        assert_eq!(util, vec!["src", "pkg", "util"]);
        assert!(import_names_module("pkg.util", "main.py", &util));
        assert!(import_names_module("util", "main.py", &util));
        assert!(!import_names_module("other.util2", "main.py", &util));
        assert!(import_names_module(".util", "src/pkg/main.py", &util));
        assert!(import_names_module("..util", "src/pkg/sub/a.py", &util));
        assert!(!import_names_module(".util", "src/other/main.py", &util));
        let package = module_parts("pkg/__init__.py");
        assert!(import_names_module(".", "pkg/main.py", &package));
        assert!(!import_names_module(".", "other/main.py", &package));
    }
}
