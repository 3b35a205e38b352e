"""candor's rope helper: answers refactoring requests with rope, over JSON lines on stdio.

candor starts this script under a Python interpreter that can import rope, as
`python -I rope_helper.py`, with its working directory outside the project. It runs rope on a
private copy of the project's Python files that candor keeps up to date (the "mirror"): rope
never sees, reads or writes the user's files, and the Project is opened without a rope folder,
so no `.ropeproject/config.py` is executed and nothing is created.

Protocol: one JSON object per line on stdin and stdout.
- On start the helper writes `{"event": "ready", "rope": VERSION, "python": VERSION,
  "executable": PATH}`, or `{"event": "unavailable", "message": ...}` and exits when rope
  cannot be imported.
- Each request is `{"id": N, "op": NAME, ...}`; each answer is `{"id": N, "ok": true,
  "result": {...}}` or `{"id": N, "ok": false, "error": {"kind", "message", "file"?,
  "line"?}}`. Error kinds: `refactoring` (rope refused), `syntax` (a project file does not
  parse), `bad_request` (candor sent something wrong), `internal` (anything else).
- Operations: `move`, `signature`, `change_signature`, `rename` (see the `op_*` functions). A new
  refactor is one more `op_*` function and one line in `OPERATIONS`.

Nothing but protocol lines ever reaches stdout: file descriptor 1 is redirected to stderr
before rope is imported, and the protocol writes to a private duplicate of it.
"""

import ast
import difflib
import hashlib
import io
import json
import os
import platform
import sys
import tokenize
import traceback

# Never import anything from the working directory or the script's directory.
sys.path[:] = [p for p in sys.path if p not in ("", ".", os.getcwd())]

_PROTOCOL = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
os.dup2(2, 1)
sys.stdout = sys.stderr


def send(message):
    _PROTOCOL.write(json.dumps(message, ensure_ascii=False) + "\n")
    _PROTOCOL.flush()


try:
    import rope
    from rope.base import exceptions, libutils, resources
    from rope.base.project import Project
    from rope.refactor import change_signature, importutils, move, occurrences, rename
    from rope.refactor.importutils import importinfo
except Exception as error:  # noqa: BLE001 - any failure means "no usable rope"
    send(
        {
            "event": "unavailable",
            "message": "%s: %s" % (type(error).__name__, error),
            "python": platform.python_version(),
            "executable": sys.executable,
        }
    )
    sys.exit(0)


class RequestError(Exception):
    """A failure to report to candor with a kind."""

    def __init__(self, kind, message, file=None, line=None):
        Exception.__init__(self, message)
        self.kind = kind
        self.message = message
        self.file = file
        self.line = line


# -- the project --------------------------------------------------------------------------


def open_project(request):
    root = request.get("root")
    if not isinstance(root, str) or not os.path.isdir(root):
        raise RequestError("bad_request", "`root` is not a directory: %r" % (root,))
    # No rope folder: no config.py executed, no .ropeproject created, nothing persisted. A
    # `src/` layout is a source folder, or rope resolves its packages to installed copies.
    src = os.path.join(root, "src")
    layout = os.path.isdir(src) and not os.path.exists(os.path.join(src, "__init__.py"))
    return Project(root, ropefolder=None, source_folders=["src"] if layout else [])


def resource_of(project, path, what):
    if not isinstance(path, str) or path.startswith("/") or ".." in path.split("/"):
        raise RequestError("bad_request", "%s `%s` is not a project-relative path" % (what, path))
    resource = project.get_file(path)
    if not resource.exists():
        raise RequestError("bad_request", "%s `%s` is not in the mirror" % (what, path))
    return resource


def checked_offset(resource, request):
    """The offset candor sent, checked against the name it says is there."""
    source = resource.read()
    offset = request.get("offset")
    name = request.get("name")
    if (
        not isinstance(offset, int)
        or not isinstance(name, str)
        or source[offset : offset + len(name)] != name
    ):
        raise RequestError(
            "bad_request",
            "offset %r of %s does not hold the name `%s`" % (offset, resource.path, name),
        )
    return offset


def sha256_of(resource):
    return hashlib.sha256(resource.read_bytes()).hexdigest()


def describe_changes(project, changes, read_before):
    """Every change of a rope ChangeSet as {path, before, after, sha256}: before is the text
    rope read (newlines normalized to \\n, as rope reads), after the text it would write."""
    out = []
    for change in changes.changes:
        kind = type(change).__name__
        if kind != "ChangeContents":
            raise RequestError(
                "refactoring",
                "rope wants to %s %s, which candor cannot preview yet"
                % (kind_verb(kind), change.resource.path),
            )
        path = change.resource.path
        before = read_before.get(path)
        if before is None:
            before = change.resource.read()
        out.append(
            {
                "path": path,
                "before": before,
                "after": change.new_contents,
                "sha256": sha256_of(change.resource),
            }
        )
    return out


def kind_verb(kind):
    return {
        "MoveResource": "move the file",
        "CreateFile": "create the file",
        "CreateFolder": "create the folder",
        "RemoveResource": "remove",
    }.get(kind, "make a %s change to" % kind)


# -- move ------------------------------------------------------------------------------------


def op_move(request):
    """Moves the global at `offset` of `path` (named `name`) to the module `dest`, which
    exists in the mirror (candor creates an empty one when the target is new). Besides rope's
    changes, rewrites the from-imports rope leaves behind: `from old import f as g` and relative
    `from .old import f`, which rope's MoveGlobal does not update."""
    project = open_project(request)
    try:
        source = resource_of(project, request.get("path"), "path")
        dest = resource_of(project, request.get("dest"), "dest")
        offset = checked_offset(source, request)
        mover = move.create_move(project, source, offset)
        if not isinstance(mover, move.MoveGlobal):
            raise RequestError(
                "refactoring",
                "rope treats `%s` as a %s, not a global function, class or variable"
                % (request["name"], type(mover).__name__),
            )
        changes = mover.get_changes(dest)
        described = describe_changes(project, changes, {})
        fixups = fix_leftover_imports(project, source, dest, request["name"], described)
        dunder = fix_dunder_all(source, dest, request["name"], described)
        for entry in described:
            if entry["path"] == dest.path:
                entry["after"] = prune_new_imports(
                    entry["before"], entry["after"], libutils.modname(source), request["name"]
                )
                entry["after"] = place_moved(entry["before"], entry["after"], request["name"])
            else:
                entry["after"] = repair_blank_lines(entry["before"], entry["after"])
        by_path = {c["path"]: c["after"] for c in described}
        cycle = imports_of(project, dest, by_path.get(dest.path), source) and imports_of(
            project, source, by_path.get(source.path), dest
        )
        return {
            "description": changes.get_description(),
            "changes": described,
            "fixups": fixups,
            "dunder_all": dunder,
            "dest_module": libutils.modname(dest),
            "source_module": libutils.modname(source),
            "import_cycle": bool(cycle),
        }
    finally:
        project.close()


def code_lines(text):
    """The lines of `text`, and for each non-blank one (index, blank lines right above it)."""
    lines = text.split("\n")
    code = []
    blank = 0
    for index, line in enumerate(lines):
        if line.strip():
            code.append((index, blank))
            blank = 0
        else:
            blank += 1
    return lines, code


def repair_blank_lines(before, after):
    """Puts back the blank lines rope's rewriting drops (`import x` glued to the `def` below
    it): a line that was there before, and still follows other code, keeps at least as many
    blank lines above it as it had."""
    old_lines, old_code = code_lines(before)
    new_lines, new_code = code_lines(after)
    matcher = difflib.SequenceMatcher(
        None,
        [old_lines[i] for i, _ in old_code],
        [new_lines[i] for i, _ in new_code],
        autojunk=False,
    )
    missing = {}
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            continue
        for old, new in zip(range(i1, i2), range(j1, j2)):
            if new == 0 or old == 0:
                continue
            wanted, have = old_code[old][1], new_code[new][1]
            if have < wanted:
                missing[new_code[new][0]] = wanted - have
    if not missing:
        return after
    out = []
    for index, line in enumerate(new_lines):
        out.extend([""] * missing.get(index, 0))
        out.append(line)
    return "\n".join(out)


def moved_block(tree, lines, name):
    """(first, last) 0-based lines of the top-level definition `name` with its decorators and
    the comment lines right above it, or None."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            first = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
            while first > 0 and lines[first - 1].lstrip().startswith("#"):
                first -= 1
            return first, node.end_lineno - 1
    return None


def header_end(text):
    """The 0-based line after a module's docstring, leading imports and module dunders
    (`__all__ = [...]`, `__version__ = ...`), 0 when it has none."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    end = 0
    for index, node in enumerate(tree.body):
        is_docstring = (
            index == 0
            and isinstance(node, ast.Expr)
            and isinstance(getattr(node.value, "value", None), str)
        )
        is_dunder = (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id.startswith("__")
            and node.targets[0].id.endswith("__")
        )
        if is_docstring or is_dunder or isinstance(node, (ast.Import, ast.ImportFrom)):
            end = node.end_lineno
        else:
            break
    return end


def place_moved(before, after, name):
    """The destination as rope wrote it, with the moved definition after the module's
    docstring and imports (rope puts it before a docstring when it adds no import), two blank
    lines around it, and the destination's own blank lines elsewhere."""
    try:
        tree = ast.parse(after)
    except (SyntaxError, ValueError):
        return after
    lines = after.split("\n")
    block = moved_block(tree, lines, name)
    if block is None:
        return repair_blank_lines(before, after)
    first, last = block
    moved = lines[first : last + 1]
    rest = repair_blank_lines(before, "\n".join(lines[:first] + lines[last + 1 :]))
    at = header_end(rest)
    if at is None:
        return after
    rest_lines = rest.split("\n")
    if before.split("\n")[0].strip():
        # The block rope put first leaves the blank lines that followed it at the top.
        while rest_lines and not rest_lines[0].strip():
            rest_lines.pop(0)
            at -= 1
    at = max(at, 0)
    head = rest_lines[:at]
    tail = rest_lines[at:]
    while head and not head[-1].strip():
        head.pop()
    while tail and not tail[0].strip():
        tail.pop(0)
    out = head + ([""] * 2 if head else []) + moved
    if any(line.strip() for line in tail):
        out += [""] * 2 + tail
    else:
        out += [""]
    return "\n".join(out)


def fix_leftover_imports(project, source, dest, name, described):
    """Rewrites `from <source> import name [as alias]` that are still there after rope's move
    into `from <dest> import name [as alias]` (other names stay where they are); in the
    destination itself, which now defines the name, the import goes. The imports are
    resolved by rope, so relative ones count. Returns a note per statement ({path, line,
    import, kind: "rewritten" | "removed" | "left"}) and updates `described` in place."""
    by_path = {c["path"]: c for c in described}
    new_module = libutils.modname(dest)
    notes = []
    tools = importutils.ImportTools(project)
    for resource in project.get_python_files():
        entry = by_path.get(resource.path)
        text = entry["after"] if entry else resource.read()
        if name not in text:
            continue
        in_dest = resource == dest
        pymodule = libutils.get_string_module(project, text, resource)
        context = importinfo.ImportContext(project, resource.parent)
        found = []
        for statement in tools.module_imports(pymodule).imports:
            info = statement.import_info
            if not isinstance(info, importinfo.FromImport) or info.is_star_import():
                continue
            names = [pair for pair in info.names_and_aliases if pair[0] == name]
            if not names:
                continue
            try:
                imported = info.get_imported_resource(context)
            except Exception:  # noqa: BLE001 - an import rope cannot resolve is not ours
                imported = None
            if imported != source:
                continue
            if in_dest and any(alias and alias != name for _, alias in names):
                # `from source import f as g` in the module that now defines `f`.
                notes.append(
                    {"path": resource.path, "line": statement.start_line, "kind": "left",
                     "import": info.get_import_statement()}
                )
                continue
            found.extend((statement.start_line, pair) for pair in names)
        if not found:
            continue
        fixed = text
        for line, pair in sorted(found, reverse=True):
            fixed = remove_imported_name(fixed, line, pair)
        if not in_dest:
            pymodule = libutils.get_string_module(project, fixed, resource)
            module_imports = tools.module_imports(pymodule)
            for _, pair in found:
                module_imports.add_import(importinfo.FromImport(new_module, 0, [pair]))
            fixed = module_imports.get_changed_source()
        if entry is None:
            entry = {
                "path": resource.path,
                "before": resource.read(),
                "after": fixed,
                "sha256": sha256_of(resource),
            }
            described.append(entry)
            by_path[resource.path] = entry
        else:
            entry["after"] = fixed
        for line, (_, alias) in found:
            notes.append(
                {
                    "path": resource.path,
                    "line": line,
                    "kind": "removed" if in_dest else "rewritten",
                    "import": "from %s import %s%s"
                    % (new_module, name, " as " + alias if alias else ""),
                }
            )
    return notes


def remove_element(lines, container, element):
    """Takes `element` (an ast node with a position) out of the bracketed or comma-separated
    list `container` in `lines`, keeping the layout of the rest: its own line goes when it
    had one, else the element and one comma."""
    row = element.lineno - 1
    line = lines[row]
    start = char_col(line, element.col_offset)
    end = char_col(line, element.end_col_offset)
    rest = line[end:].lstrip()
    if element.lineno != container.lineno and not line[:start].strip() and rest in ("", ","):
        del lines[row]
        return
    after = line[end:]
    stripped = after.lstrip()
    if stripped.startswith(","):
        cut = end + (len(after) - len(stripped)) + 1
        while cut < len(line) and line[cut] == " ":
            cut += 1
        lines[row] = line[:start] + line[cut:]
    else:
        head = line[:start].rstrip()
        if head.endswith(","):
            head = head[:-1]
        lines[row] = head + line[end:]


def remove_imported_name(text, line, pair):
    """`text` without `name [as alias]` in the from-import statement at `line` (the whole
    statement when it was the only name), its layout kept."""
    name, alias = pair
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return text
    statement = next(
        (n for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.lineno == line), None
    )
    if statement is None:
        return text
    lines = text.split("\n")
    kept = [a for a in statement.names if not (a.name == name and a.asname == alias)]
    if not kept:
        del lines[statement.lineno - 1 : statement.end_lineno]
        return "\n".join(lines)
    element = next(
        (a for a in statement.names if a.name == name and a.asname == alias), None
    )
    if element is None or getattr(element, "end_col_offset", None) is None:
        # Python before 3.10 gives names no positions: the statement is written anew.
        indent = lines[statement.lineno - 1][: statement.col_offset]
        rendered = "from %s%s import %s" % (
            "." * statement.level,
            statement.module or "",
            ", ".join(a.name + (" as " + a.asname if a.asname else "") for a in kept),
        )
        lines[statement.lineno - 1 : statement.end_lineno] = [indent + rendered]
        return "\n".join(lines)
    remove_element(lines, statement, element)
    return "\n".join(lines)


def prune_new_imports(before, after, source_module, name):
    """Drops the names the moved definition does not use from the imports of the old module
    rope adds to the destination (it adds `from pkg.old import <every name of pkg.old>`,
    `__all__` included)."""
    try:
        tree = ast.parse(after)
    except (SyntaxError, ValueError):
        return after
    moved = next(
        (
            n
            for n in tree.body
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and n.name == name
        ),
        None,
    )
    if moved is None:
        return after
    used = {n.id for n in ast.walk(moved) if isinstance(n, ast.Name)}
    old_lines = set(before.split("\n"))
    lines = after.split("\n")
    for statement in reversed(tree.body):
        if not (
            isinstance(statement, ast.ImportFrom)
            and statement.level == 0
            and statement.module == source_module
            and lines[statement.lineno - 1] not in old_lines
        ):
            continue
        unused = [
            a for a in statement.names if (a.asname or a.name) not in used or a.name == "__all__"
        ]
        if len(unused) == len(statement.names):
            del lines[statement.lineno - 1 : statement.end_lineno]
        else:
            text = "\n".join(lines)
            for alias in reversed(unused):
                text = remove_imported_name(text, statement.lineno, (alias.name, alias.asname))
            lines = text.split("\n")
    return "\n".join(lines)


def imports_of(project, resource, text, other):
    """Whether the module-level imports of `resource` (as `text`) import the module `other`."""
    if text is None:
        text = resource.read()
    try:
        pymodule = libutils.get_string_module(project, text, resource)
        statements = importutils.ImportTools(project).module_imports(pymodule).imports
    except Exception:  # noqa: BLE001 - a module rope cannot read imports nothing we know of
        return False
    context = importinfo.ImportContext(project, resource.parent)
    for statement in statements:
        info = statement.import_info
        try:
            if isinstance(info, importinfo.FromImport):
                if info.get_imported_resource(context) == other:
                    return True
            elif isinstance(info, importinfo.NormalImport):
                for name, _ in info.names_and_aliases:
                    if project.find_module(name) == other:
                        return True
        except Exception:  # noqa: BLE001 - an import rope cannot resolve is not `other`
            continue
    return False


def dunder_all(text):
    """The `__all__ = [...]` (or tuple) of string literals at the top level of `text`: the
    list node, or None."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id == "__all__"
            and isinstance(node.value, (ast.List, ast.Tuple))
            and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.value.elts
            )
        ):
            return node.value
    return None


def char_col(line, byte_col):
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace"))


def remove_from_all(text, name):
    """`text` with `name` taken out of its literal `__all__`, or None when it is not there."""
    node = dunder_all(text)
    if node is None:
        return None
    element = next((e for e in node.elts if e.value == name), None)
    if element is None:
        return None
    lines = text.split("\n")
    remove_element(lines, node, element)
    return "\n".join(lines)


def add_to_all(text, name):
    """`text` with `name` added to its literal `__all__` (in order when the list is sorted),
    or None when it has none or already lists it."""
    node = dunder_all(text)
    if node is None or any(e.value == name for e in node.elts):
        return None
    lines = text.split("\n")
    elements = node.elts
    quote = "'"
    if elements:
        first = elements[0]
        first_line = lines[first.lineno - 1]
        quote = first_line[char_col(first_line, first.col_offset)]
    literal = quote + name + quote
    one_per_line = len(elements) > 1 and len({e.lineno for e in elements}) == len(elements)
    if one_per_line:
        values = [e.value for e in elements]
        if values == sorted(values):
            index = next((i for i, v in enumerate(values) if v > name), len(values))
        else:
            index = len(values)
        anchor = elements[min(index, len(elements) - 1)]
        anchor_line = lines[anchor.lineno - 1]
        indent = anchor_line[: len(anchor_line) - len(anchor_line.lstrip())]
        if index < len(elements):
            lines.insert(anchor.lineno - 1, indent + literal + ",")
        else:
            if not anchor_line.rstrip().endswith(","):
                lines[anchor.lineno - 1] = anchor_line.rstrip() + ","
            lines.insert(anchor.lineno, indent + literal + ",")
        return "\n".join(lines)
    # On one line (or an empty list): before the closing bracket.
    row = node.end_lineno - 1
    line = lines[row]
    close = char_col(line, node.end_col_offset) - 1
    head = line[:close].rstrip()
    if not elements:
        insert = literal
    elif head.endswith(","):
        insert = " " + literal + ","
    else:
        insert = ", " + literal
    lines[row] = head + insert + line[close:]
    return "\n".join(lines)


def fix_dunder_all(source, dest, name, described):
    """Takes the moved name out of the source's literal `__all__` and adds it to the
    destination's (rope updates neither). Returns a note per file changed."""
    by_path = {c["path"]: c for c in described}
    notes = []
    for resource, change in ((source, remove_from_all), (dest, add_to_all)):
        entry = by_path.get(resource.path)
        if entry is None:
            continue
        fixed = change(entry["after"], name)
        if fixed is not None:
            entry["after"] = fixed
            notes.append({"path": resource.path, "kind": change.__name__})
    return notes


# -- change signature ----------------------------------------------------------------------


def function_at(project, request):
    resource = resource_of(project, request.get("path"), "path")
    offset = checked_offset(resource, request)
    changer = change_signature.ChangeSignature(project, resource, offset)
    return resource, changer


def op_signature(request):
    """The parameter list of the function at `offset` and of `new_list` (the list with its
    parentheses, as candor will write it), each as {args: [[name, default]], vararg, kwarg,
    positional_only, keyword_only}; the receiver of a method is the first of `args`.
    `rope_reads_it` says whether rope's own reading of the definition agrees (rope misreads
    some lists, e.g. `*args` after a parameter with a default); `body_uses` gives, for each
    old parameter, the lines of the body that read it."""
    project = open_project(request)
    try:
        _, changer = function_at(project, request)
        pyfunction = changer.pyname.get_object()
        node = pyfunction.get_ast()
        source = pyfunction.get_module().source_code
        old = param_list(node.args, source)
        new_list = request.get("new_list")
        if new_list is None:
            new = old
        elif isinstance(new_list, str):
            header = "def _candor_new_list" + new_list + ": pass\n"
            try:
                new = param_list(ast.parse(header).body[0].args, header)
            except SyntaxError as error:
                raise RequestError(
                    "bad_request", "the new list %s does not parse: %s" % (new_list, error)
                )
        else:
            raise RequestError("bad_request", "`new_list` is not a string")
        info = changer._definfo()
        rope_args = [[arg, default] for arg, default in info.args_with_defaults]
        rope_reads_it = (
            rope_args == old["args"]
            and info.args_arg == old["vararg"]
            and info.keywords_arg == old["kwarg"]
        )
        return {
            "name": changer.name,
            "kind": pyfunction.get_kind(),
            "old": old,
            "new": new,
            "rope_reads_it": rope_reads_it,
            "body_uses": body_uses(node, [name for name, _ in old["args"]]),
        }
    finally:
        project.close()


def param_list(arguments, source):
    positional = list(getattr(arguments, "posonlyargs", [])) + list(arguments.args)
    first_default = len(positional) - len(arguments.defaults)
    args = []
    for index, arg in enumerate(positional):
        default = None
        if index >= first_default:
            default = ast.get_source_segment(source, arguments.defaults[index - first_default])
        args.append([arg.arg, default])
    return {
        "args": args,
        "vararg": arguments.vararg.arg if arguments.vararg else None,
        "kwarg": arguments.kwarg.arg if arguments.kwarg else None,
        "positional_only": [a.arg for a in getattr(arguments, "posonlyargs", [])],
        "keyword_only": [a.arg for a in arguments.kwonlyargs],
    }


def body_uses(node, names):
    uses = {}
    for statement in node.body:
        for sub in ast.walk(statement):
            if isinstance(sub, ast.Name) and sub.id in names and isinstance(sub.ctx, ast.Load):
                uses.setdefault(sub.id, []).append(sub.lineno)
    return {name: sorted(set(lines)) for name, lines in uses.items()}


CHANGERS = {
    "remove": lambda c: change_signature.ArgumentRemover(c["index"]),
    "add": lambda c: change_signature.ArgumentAdder(
        c["index"], c["name"], c.get("default"), c.get("value")
    ),
    "reorder": lambda c: change_signature.ArgumentReorderer(c["order"]),
    "inline_default": lambda c: inliner(c["index"]),
    "normalize": lambda c: change_signature.ArgumentNormalizer(),
}


def inliner(index):
    changer = change_signature.ArgumentDefaultInliner(index)
    changer.remove = True
    return changer


class CallSites(change_signature._FunctionChangers):
    """rope's changers applied to the calls only: the definition is left as it is (candor
    renders it, keeping annotations and comments rope would drop). A call whose arguments
    bind the parameters as before is left byte for byte; a call with `*` or `**` arguments is
    left alone and reported, since which parameters it fills is known only at run time."""

    def __init__(self, pyfunction, definition_info, changers):
        change_signature._FunctionChangers.__init__(self, pyfunction, definition_info, changers)
        self.identity = change_signature._FunctionChangers(pyfunction, definition_info, [])
        self.calls = []
        # Where the call being changed is: {"path", "line"}.
        self.where = {}

    def change_definition(self, call):
        return None

    def change_call(self, primary, pyname, call):
        if has_splat(call):
            self.calls.append(dict(self.where, status="splat", text=one_line(call)))
            return None
        before = self.identity.change_call(primary, pyname, call)
        after = change_signature._FunctionChangers.change_call(self, primary, pyname, call)
        if after == before:
            self.calls.append(dict(self.where, status="unchanged"))
            return None
        entry = dict(self.where, status="rewritten", text=one_line(call), new=after)
        lost = comments_of(call)
        if lost:
            entry["comments_dropped"] = lost
        self.calls.append(entry)
        return after


def has_splat(call):
    try:
        node = ast.parse(call.strip(), mode="eval").body
    except SyntaxError:
        return False
    if not isinstance(node, ast.Call):
        return False
    return any(isinstance(a, ast.Starred) for a in node.args) or any(
        k.arg is None for k in node.keywords
    )


def comments_of(text):
    try:
        tokens = tokenize.generate_tokens(io.StringIO(text).readline)
        return [t.string for t in tokens if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []


def one_line(text):
    return " ".join(text.split())


def op_change_signature(request):
    """Applies rope's argument changers (`changers`, in order) to every call of the function at
    `offset`: calls by its own name, by a module alias (`m.f(...)`) and, beyond what rope's
    ChangeSignature searches, through `from m import f as g` aliases. The definition is not
    changed (candor renders it)."""
    project = open_project(request)
    try:
        resource, changer = function_at(project, request)
        try:
            changers = [CHANGERS[c["op"]](c) for c in request.get("changers", [])]
        except (KeyError, TypeError) as error:
            raise RequestError("bad_request", "bad changer list: %s" % error)
        pyfunction = changer.pyname.get_object()
        call_sites = CallSites(pyfunction, changer._definfo(), changers)
        described = []
        words = [changer.name] + ([changer.others[0]] if changer.others else [])
        for file in project.get_python_files():
            text = file.read()
            if not any(word in text for word in words):
                continue
            new_text = change_calls(project, file, text, changer.name, changer, call_sites)
            for alias in aliases_in(project, file, new_text, changer):
                new_text = change_calls(project, file, new_text, alias, changer, call_sites)
            if new_text != text:
                described.append(
                    {"path": file.path, "before": text, "after": new_text, "sha256": sha256_of(file)}
                )
        return {"changes": described, "calls": call_sites.calls, "function": changer.name}
    finally:
        project.close()


def aliases_in(project, resource, text, changer):
    """Names bound in `resource` by `from ... import <function> as <alias>` of this function."""
    if " as " not in text or changer.name not in text:
        return []
    found = []
    pymodule = libutils.get_string_module(project, text, resource)
    for statement in importutils.ImportTools(project).module_imports(pymodule).imports:
        info = statement.import_info
        if not isinstance(info, importinfo.FromImport):
            continue
        for name, alias in info.names_and_aliases:
            if name != changer.name or not alias or alias == name:
                continue
            try:
                same = occurrences.same_pyname(changer.pyname, pymodule.get_attribute(alias))
            except Exception:  # noqa: BLE001 - an unresolvable import is not this function
                same = False
            if same:
                found.append(alias)
    return found


def change_calls(project, resource, text, name, changer, call_sites):
    """The text of `resource` with every call of the function under `name` rewritten."""
    finder = occurrences.create_finder(
        project, name, changer.pyname, instance=changer.primary
    )
    if changer.others:
        other_name, other_pyname = changer.others
        constructor = occurrences.create_finder(project, other_name, other_pyname, only_calls=True)
        finder = change_signature._MultipleFinders([finder, constructor])
    if text == resource.read():
        # The project's own module: in the defining file, its names are the function itself.
        pymodule = project.get_pymodule(resource)
    else:
        pymodule = libutils.get_string_module(project, text, resource)
    words = change_signature.worder.Worder(text)
    collector = change_signature.codeanalyze.ChangeCollector(text)
    for occurrence in finder.find_occurrences(pymodule=pymodule):
        start, end = occurrence.get_primary_range()
        line = text.count("\n", 0, start) + 1
        if not occurrence.is_called() and not occurrence.is_defined():
            if not occurrence.is_in_import_statement():
                # Passed as a value (`partial(f, 1)`, `map(f, xs)`): its calls are elsewhere.
                text_line = text.split("\n")[line - 1].strip()
                call_sites.calls.append(
                    {"path": resource.path, "line": line, "status": "reference", "text": text_line}
                )
            continue
        _, end_parens = words.get_word_parens_range(end - 1)
        call_sites.where = {"path": resource.path, "line": line}
        if occurrence.is_called():
            primary, pyname = occurrence.get_primary_and_pyname()
            changed = call_sites.change_call(primary, pyname, text[start:end_parens])
        else:
            changed = call_sites.change_definition(text[start:end_parens])
        if changed is not None:
            collector.add_change(start, end_parens, changed)
    result = collector.get_changed()
    return text if result is None else result


# -- rename ----------------------------------------------------------------------------------


def op_rename(request):
    """Renames the symbol whose definition's name is at `offset` of `path` to `new_name`:
    methods with their overrides in the class hierarchy; never in strings or comments. Modules
    are refused (renaming one moves its file). `unsure` lists the occurrences rope could not
    decide on and left alone, as {path, start, end} (character offsets)."""
    project = open_project(request)
    try:
        resource = resource_of(project, request.get("path"), "path")
        offset = checked_offset(resource, request)
        new_name = request.get("new_name")
        if not isinstance(new_name, str) or not new_name.isidentifier():
            raise RequestError("bad_request", "`new_name` %r is not a name" % (new_name,))
        renamer = rename.Rename(project, resource, offset)
        if renamer._is_renaming_a_module():
            raise RequestError(
                "refactoring",
                "`%s` is a module: renaming it means renaming its file, which candor does not do"
                % renamer.old_name,
            )
        unsure = []

        def note_unsure(occurrence):
            start, end = occurrence.get_word_range()
            unsure.append({"path": occurrence.resource.path, "start": start, "end": end})
            return False

        changes = renamer.get_changes(new_name, in_hierarchy=True, unsure=note_unsure, docs=False)
        return {"changes": describe_changes(project, changes, {}), "unsure": unsure}
    finally:
        project.close()


# -- the loop --------------------------------------------------------------------------------

OPERATIONS = {
    "move": op_move,
    "signature": op_signature,
    "change_signature": op_change_signature,
    "rename": op_rename,
}


def answer(request):
    op = OPERATIONS.get(request.get("op"))
    if op is None:
        raise RequestError("bad_request", "unknown operation %r" % (request.get("op"),))
    return op(request)


def error_of(error):
    if isinstance(error, RequestError):
        out = {"kind": error.kind, "message": error.message}
        if error.file:
            out["file"] = error.file
        if error.line:
            out["line"] = error.line
        return out
    if isinstance(error, exceptions.ModuleSyntaxError):
        out = {"kind": "syntax", "message": str(error)}
        filename = getattr(error, "filename", None)
        if filename:
            out["file"] = filename
        line = getattr(error, "lineno", None)
        if line:
            out["line"] = line
        return out
    if isinstance(error, exceptions.RefactoringError):
        return {"kind": "refactoring", "message": str(error)}
    if isinstance(error, exceptions.ResourceNotFoundError):
        return {"kind": "bad_request", "message": str(error)}
    frames = traceback.extract_tb(error.__traceback__)
    where = ""
    if frames:
        last = frames[-1]
        where = " (at %s:%s in %s)" % (os.path.basename(last.filename), last.lineno, last.name)
    out = {
        "kind": "internal",
        "message": "%s: %s%s" % (type(error).__name__, error, where),
    }
    failed_on = project_file_of(error)
    if failed_on:
        out["file"] = failed_on
    return out


def project_file_of(error):
    """The project file rope was working on when it failed: the innermost frame of the
    traceback that holds one of rope's File resources (rope's own errors do not say it)."""
    frames = []
    tb = error.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    for frame in reversed(frames):
        for value in list(frame.f_locals.values()):
            if isinstance(value, resources.File):
                return value.path
    return None


def main():
    send(
        {
            "event": "ready",
            "rope": getattr(rope, "VERSION", "unknown"),
            "python": platform.python_version(),
            "executable": sys.executable,
        }
    )
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError as error:
            send({"id": None, "ok": False, "error": {"kind": "bad_request", "message": str(error)}})
            continue
        ident = request.get("id") if isinstance(request, dict) else None
        try:
            if not isinstance(request, dict):
                raise RequestError("bad_request", "a request is a JSON object")
            result = answer(request)
            send({"id": ident, "ok": True, "result": result})
        except Exception as error:  # noqa: BLE001 - every failure is an answer
            traceback.print_exc(file=sys.stderr)
            send({"id": ident, "ok": False, "error": error_of(error)})


if __name__ == "__main__":
    main()
