use super::*;
use crate::cancel::Cancel;
use std::os::unix::fs::MetadataExt;
use std::time::{Duration, Instant};

fn budget(cancel: &Cancel) -> Budget<'_> {
    Budget::new(Instant::now() + Duration::from_secs(60), cancel)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// Every path under `dir`, relative, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = walk_all(dir)
        .into_iter()
        .map(|p| p.strip_prefix(dir).unwrap().display().to_string())
        .collect();
    out.sort();
    out
}

fn walk_all(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() && !path.is_symlink() {
            out.extend(walk_all(&path));
        }
        out.push(path);
    }
    out
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join(".git/objects")).unwrap();
    std::fs::create_dir_all(root.join("target/debug")).unwrap();
    std::fs::create_dir_all(root.join(".venv/bin")).unwrap();
    std::fs::create_dir_all(root.join("ignored")).unwrap();
    std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
    std::fs::write(root.join("src/lib.rs"), "pub fn a() {}\n").unwrap();
    std::fs::write(root.join(".cargo-like"), "hidden files are mirrored\n").unwrap();
    std::fs::write(root.join(".gitignore"), "ignored/\n").unwrap();
    std::fs::write(root.join("ignored/big.bin"), "x").unwrap();
    std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(root.join("target/debug/out"), "build output").unwrap();
    std::fs::write(root.join(".venv/pyvenv.cfg"), "home = /usr\n").unwrap();
    std::os::unix::fs::symlink("lib.rs", root.join("src/alias.rs")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", root.join("src/outside.rs")).unwrap();
    dir
}

/// A shadow `name` in a cache folder, with its manifest beside it.
struct Shadow {
    cache: tempfile::TempDir,
    name: &'static str,
}

impl Shadow {
    fn new(name: &'static str) -> Shadow {
        let cache = tempfile::tempdir().unwrap();
        std::fs::create_dir(cache.path().join(name)).unwrap();
        Shadow { cache, name }
    }

    fn path(&self) -> PathBuf {
        self.cache.path().join(self.name)
    }

    fn manifest(&self) -> PathBuf {
        self.cache
            .path()
            .join(format!("{}.manifest.json", self.name))
    }

    fn sync(
        &self,
        root: &Path,
        overrides: &BTreeMap<String, Vec<u8>>,
        cancel: &Cancel,
    ) -> Result<Synced, SyncError> {
        let files = project_files(root, &budget(cancel))?;
        let dir = Dir::open_path(&self.path()).unwrap();
        let cache_dir = Dir::open_path(self.cache.path()).unwrap();
        let manifest = format!("{}.manifest.json", self.name);
        let target = Target {
            dir: &dir,
            path: &self.path(),
            manifest_dir: &cache_dir,
            manifest_name: &manifest,
        };
        sync(&files, &target, overrides, &budget(cancel), &|_, _| {})
    }
}

#[test]
fn a_shadow_mirrors_the_project_with_the_overrides() {
    let project = project();
    let root = project.path().canonicalize().unwrap();
    let shadow = Shadow::new("edit");
    let cancel = Cancel::new();
    let overrides = BTreeMap::from([("src/lib.rs".to_string(), b"pub fn b() {}\n".to_vec())]);
    let synced = shadow.sync(&root, &overrides, &cancel).unwrap();
    assert_eq!(
        listing(&shadow.path()),
        vec![
            ".cargo-like",
            ".gitignore",
            "Cargo.toml",
            "src",
            "src/alias.rs",
            "src/lib.rs"
        ]
    );
    assert_eq!(read(&shadow.path().join("src/lib.rs")), "pub fn b() {}\n");
    assert_eq!(read(&shadow.path().join("src/alias.rs")), "pub fn a() {}\n");
    assert_eq!(synced.stats.written, 1);
    assert_eq!(synced.stats.copied + synced.stats.reflinked, 4);
    assert_eq!(
        synced.content["src/lib.rs"],
        crate::edit::sha256_hex(b"pub fn b() {}\n")
    );
    // Copies: a write in the shadow never reaches the project.
    std::fs::write(
        shadow.path().join("Cargo.toml"),
        "changed by a build script",
    )
    .unwrap();
    assert_eq!(read(&root.join("Cargo.toml")), "[package]\nname = \"x\"\n");

    // Again: only what changed is redone (the file the build script wrote is put back), and the
    // content is the same.
    let again = shadow.sync(&root, &overrides, &cancel).unwrap();
    assert_eq!(
        (again.stats.kept, again.stats.copied + again.stats.reflinked),
        (4, 1)
    );
    assert_eq!(again.content, synced.content);
    assert_eq!(
        read(&shadow.path().join("Cargo.toml")),
        "[package]\nname = \"x\"\n"
    );

    // Without the override the file comes back as a new file (a new mtime for cargo), and a
    // file deleted from the project leaves the shadow.
    std::fs::remove_file(root.join(".cargo-like")).unwrap();
    let before = std::fs::metadata(shadow.path().join("src/lib.rs"))
        .unwrap()
        .modified()
        .unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let back = shadow.sync(&root, &BTreeMap::new(), &cancel).unwrap();
    assert_eq!(back.stats.removed, 1);
    assert_eq!(read(&shadow.path().join("src/lib.rs")), "pub fn a() {}\n");
    let after = std::fs::metadata(shadow.path().join("src/lib.rs"))
        .unwrap()
        .modified()
        .unwrap();
    assert!(after > before);
    assert!(!shadow.path().join(".cargo-like").exists());
}

#[test]
fn the_same_bytes_are_not_written_again() {
    let project = project();
    let root = project.path().canonicalize().unwrap();
    let shadow = Shadow::new("cargo");
    let cancel = Cancel::new();
    let result = BTreeMap::from([("src/lib.rs".to_string(), b"pub fn b() {}\n".to_vec())]);
    shadow.sync(&root, &result, &cancel).unwrap();
    let written = std::fs::metadata(shadow.path().join("src/lib.rs"))
        .unwrap()
        .modified()
        .unwrap();
    // The user applies the result: the shadow already holds it, untouched.
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(root.join("src/lib.rs"), "pub fn b() {}\n").unwrap();
    let synced = shadow.sync(&root, &BTreeMap::new(), &cancel).unwrap();
    // Only the symbolic link to it is copied again (its target's content changed).
    assert_eq!(synced.stats.kept, 4);
    assert_eq!(
        (
            synced.stats.copied + synced.stats.reflinked,
            synced.stats.written
        ),
        (1, 0)
    );
    let after = std::fs::metadata(shadow.path().join("src/lib.rs"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(written, after);
}

#[test]
fn no_project_file_ever_gains_a_second_name_in_the_shadow() {
    let project = project();
    let root = project.path().canonicalize().unwrap();
    // The cache beside the project, on the same file system, where a hard link would work.
    let shadow = Shadow::new("base");
    let cancel = Cancel::new();
    for _ in 0..2 {
        shadow.sync(&root, &BTreeMap::new(), &cancel).unwrap();
    }
    for file in ["Cargo.toml", "src/lib.rs", ".gitignore"] {
        let theirs = std::fs::metadata(root.join(file)).unwrap();
        let ours = std::fs::metadata(shadow.path().join(file)).unwrap();
        assert_eq!(theirs.nlink(), 1, "{file} has one name");
        assert_ne!((theirs.dev(), theirs.ino()), (ours.dev(), ours.ino()));
    }
}

#[test]
fn a_cancelled_sync_leaves_a_shadow_the_next_sync_repairs() {
    let project = project();
    let root = project.path().canonicalize().unwrap();
    let shadow = Shadow::new("edit");
    let cancel = Cancel::new();
    let files = project_files(&root, &budget(&cancel)).unwrap();
    cancel.cancel();
    let dir = Dir::open_path(&shadow.path()).unwrap();
    let cache_dir = Dir::open_path(shadow.cache.path()).unwrap();
    let target = Target {
        dir: &dir,
        path: &shadow.path(),
        manifest_dir: &cache_dir,
        manifest_name: "edit.manifest.json",
    };
    let result = sync(
        &files,
        &target,
        &BTreeMap::new(),
        &budget(&cancel),
        &|_, _| {},
    );
    assert!(matches!(result, Err(SyncError::Stopped(Stop::Cancelled))));
    // A file half-written by a killed check: different size and time than recorded.
    std::fs::create_dir_all(shadow.path().join("src")).unwrap();
    std::fs::write(shadow.path().join("src/lib.rs"), "pub fn").unwrap();
    shadow
        .sync(&root, &BTreeMap::new(), &Cancel::new())
        .unwrap();
    assert_eq!(read(&shadow.path().join("src/lib.rs")), "pub fn a() {}\n");
}

#[test]
fn a_hostile_manifest_never_makes_a_sync_delete_outside_the_shadow() {
    let project = project();
    let root = project.path().canonicalize().unwrap();
    let shadow = Shadow::new("edit");
    // The victim sits beside the cache; the keys climb out of the shadow to reach it.
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim");
    std::fs::create_dir(&victim).unwrap();
    std::fs::write(victim.join("precious.txt"), "keep me").unwrap();
    let climb = "../".repeat(12) + victim.strip_prefix("/").unwrap().to_str().unwrap();
    let entry = serde_json::json!({
        "origin": {"Written": "00"},
        "stamp": {"dev": 0, "ino": 0, "size": 0, "mtime_ns": 0, "mode": 0},
        "sha256": "00"
    });
    let mut manifest = serde_json::Map::new();
    for key in [
        "../../../../victim".to_string(),
        climb,
        victim.display().to_string(),
        "src/../../victim".to_string(),
    ] {
        manifest.insert(key, entry.clone());
    }
    std::fs::write(
        shadow.manifest(),
        serde_json::to_vec(&serde_json::Value::Object(manifest)).unwrap(),
    )
    .unwrap();
    shadow
        .sync(&root, &BTreeMap::new(), &Cancel::new())
        .unwrap();
    assert_eq!(read(&victim.join("precious.txt")), "keep me");
    // The foreign keys are gone from the manifest.
    let kept: BTreeMap<String, serde_json::Value> =
        serde_json::from_slice(&std::fs::read(shadow.manifest()).unwrap()).unwrap();
    assert!(
        kept.keys()
            .all(|k| !k.contains("..") && !k.starts_with('/')),
        "{kept:?}"
    );
    assert_eq!(split_key("../../../../victim"), None);
    assert_eq!(split_key("/etc/passwd"), None);
    assert_eq!(split_key("a//b"), None);
    assert_eq!(split_key("a/./b"), None);
    assert!(split_key("pkg/mod.py").is_some());
}

#[test]
fn a_symbolic_link_inside_the_shadow_is_replaced_never_followed() {
    let project = project();
    let root = project.path().canonicalize().unwrap();
    let shadow = Shadow::new("edit");
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("lib.rs"), "theirs").unwrap();
    // A hand in the cache points the shadow's `src` at another folder.
    std::os::unix::fs::symlink(outside.path(), shadow.path().join("src")).unwrap();
    let overrides = BTreeMap::from([("src/lib.rs".to_string(), b"pub fn b() {}\n".to_vec())]);
    shadow.sync(&root, &overrides, &Cancel::new()).unwrap();
    assert_eq!(read(&outside.path().join("lib.rs")), "theirs");
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1);
    let src = std::fs::symlink_metadata(shadow.path().join("src")).unwrap();
    assert!(src.is_dir(), "a real folder now");
    assert_eq!(read(&shadow.path().join("src/lib.rs")), "pub fn b() {}\n");
}

#[test]
fn a_path_longer_than_the_system_limit_in_the_cache_is_mirrored() {
    // Fits under PATH_MAX in the project, not once the cache's longer prefix is added: every
    // shadow file is reached one name at a time, so no full path is ever formed.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let component = "d".repeat(200);
    let depth = (4080 - root.as_os_str().len() - 5) / 201;
    let mut deep = PathBuf::new();
    for _ in 0..depth {
        deep.push(&component);
    }
    std::fs::create_dir_all(root.join(&deep)).unwrap();
    std::fs::write(root.join(deep.join("m.py")), "x = 1\n").unwrap();
    std::fs::write(root.join("a.py"), "y = 2\n").unwrap();
    let cache = tempfile::tempdir().unwrap();
    let long = cache.path().join("c".repeat(200)).join("c".repeat(200));
    std::fs::create_dir_all(long.join("edit")).unwrap();
    let relative = format!("{}/m.py", deep.display());
    assert!(long.join("edit").join(&relative).as_os_str().len() > 4096);
    let files = project_files(&root, &budget(&Cancel::new())).unwrap();
    let dir = Dir::open_path(&long.join("edit")).unwrap();
    let cache_dir = Dir::open_path(&long).unwrap();
    let target = Target {
        dir: &dir,
        path: &long.join("edit"),
        manifest_dir: &cache_dir,
        manifest_name: "edit.manifest.json",
    };
    let synced = sync(
        &files,
        &target,
        &BTreeMap::new(),
        &budget(&Cancel::new()),
        &|_, _| {},
    )
    .unwrap();
    assert!(synced.skipped.is_empty(), "{:?}", synced.skipped);
    assert!(synced.content.contains_key(&relative));
    assert!(synced.content.contains_key("a.py"));
}

#[test]
fn a_folder_the_walk_cannot_enter_is_left_out_and_said() {
    // Longer than PATH_MAX in the project itself: the walk cannot open it by its path. The rest
    // of the project is still mirrored.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("a.py"), "y = 2\n").unwrap();
    let component = "d".repeat(200);
    let mut deep = Dir::open_path(&root).unwrap();
    for _ in 0..22 {
        deep = deep.create_dir(OsStr::new(&component), 0o755).unwrap().0;
    }
    deep.create_file(OsStr::new("m.py"), 0o644, b"x = 1\n")
        .unwrap();
    let mut left_out = Vec::new();
    let files = project_files_noting(&root, &budget(&Cancel::new()), &mut left_out).unwrap();
    assert!(files.iter().any(|f| f.relative == "a.py"));
    assert_eq!(left_out.len(), 1, "{left_out:?}");
    assert!(left_out[0].contains("too long"), "{left_out:?}");
    assert!(left_out[0].len() < 200, "shortened: {left_out:?}");
}
