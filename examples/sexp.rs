//! Prints the syntax tree of a file (`cargo run --example sexp -- FILE`), for debugging grammars.
fn main() {
    let path = std::env::args().nth(1).expect("usage: sexp FILE");
    let text = std::fs::read_to_string(&path).expect("readable file");
    let lang = candor::lang::Language::from_path(&path).expect(".rs or .py");
    let tree = lang.parse(&text);
    println!("{}", tree.root_node().to_sexp());
}
