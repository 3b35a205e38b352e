#!/usr/bin/env python3
"""A scripted language server for candor's protocol tests (tests/lsp_protocol.rs).

Usage: mock_lsp.py SCENARIO [PID_FILE]

Scenarios:
  resolve   rust-analyzer-like: reports indexing progress, then quiescence; offers
            "Extract into function" without an edit, resolves it on codeAction/resolve
            (the new function is called `fun_name`), and renames through textDocument/rename.
  command   pylsp-rope-like: offers "Extract method" as a command; on workspace/executeCommand
            it sends workspace/applyEdit and waits for the client's answer before answering;
            the new function is called `extracted_method`; no rename support.
  timeout   like `resolve`, but never answers textDocument/codeAction (nor its cancel).
  cancellable  like `resolve`, but answers textDocument/codeAction only when the client
            cancels it ($/cancelRequest), with the error RequestCancelled (-32800).
  crash     like `resolve`, but exits with status 3 on textDocument/codeAction after a line on
            stderr.
  never_ready  like `resolve`, but never becomes quiescent.
  outside   like `resolve`, but the resolved edit also touches a file outside the project.
  noisy     like `resolve`, and writes a lot to stderr and a server request candor does not know.

Every message is written in pieces (header and body split, with pauses) or several at once,
to exercise the client's framing. Positions are UTF-16 code units, as on the wire.
"""

import json
import os
import re
import sys
import threading
import time

SCENARIO = sys.argv[1] if len(sys.argv) > 1 else "resolve"
if len(sys.argv) > 2:
    with open(sys.argv[2], "w") as f:
        f.write(str(os.getpid()))

stdin = sys.stdin.buffer
stdout = sys.stdout.buffer
write_lock = threading.Lock()
documents = {}  # uri -> (version, text)
pending_replies = {}  # id -> threading.Event, result
next_id = [1000]
write_count = [0]


def frame(message):
    body = json.dumps(message, ensure_ascii=False).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def send(*messages):
    """Writes messages: alternately split in pieces with pauses, or all in one write."""
    with write_lock:
        write_count[0] += 1
        data = b"".join(frame(m) for m in messages)
        if write_count[0] % 2 == 0:
            stdout.write(data)
            stdout.flush()
            return
        for m in messages:
            raw = frame(m)
            header_end = raw.index(b"\r\n\r\n") + 4
            cuts = [0, header_end - 3, header_end, header_end + (len(raw) - header_end) // 2, len(raw)]
            for a, b in zip(cuts, cuts[1:]):
                stdout.write(raw[a:b])
                stdout.flush()
                time.sleep(0.002)


def read():
    headers = {}
    while True:
        line = stdin.readline()
        if not line:
            return None
        line = line.decode("ascii").strip()
        if not line:
            break
        name, value = line.split(":", 1)
        headers[name.strip().lower()] = value.strip()
    body = stdin.read(int(headers["content-length"]))
    return json.loads(body.decode("utf-8"))


def offset(text, position):
    """Index into `text` of an LSP position (line, UTF-16 character)."""
    lines = text.split("\n")
    start = sum(len(l) + 1 for l in lines[: position["line"]])
    line = lines[position["line"]] if position["line"] < len(lines) else ""
    units = 0
    for i, ch in enumerate(line):
        if units >= position["character"]:
            return start + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return start + len(line)


def position(text, index):
    before = text[:index]
    line = before.count("\n")
    column = before[before.rfind("\n") + 1 :]
    return {"line": line, "character": sum(2 if ord(c) > 0xFFFF else 1 for c in column)}


def end_position(text):
    return position(text, len(text))


def respond(request, result):
    send({"jsonrpc": "2.0", "id": request["id"], "result": result})


def server_request(method, params):
    """Sends a request to the client and waits for its answer (from the main loop)."""
    next_id[0] += 1
    rid = next_id[0]
    event = threading.Event()
    pending_replies[rid] = [event, None]
    send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
    if not event.wait(10):
        sys.stderr.write("mock: the client never answered %s\n" % method)
        sys.exit(5)
    return pending_replies.pop(rid)[1]


def extract_edit(uri, selection, default_name):
    """Replaces the selected statements by a call and appends the new function at the end."""
    version, text = documents[uri]
    start, end = offset(text, selection["start"]), offset(text, selection["end"])
    body = text[start:end]
    if default_name == "fun_name":
        # The comment tells a server rename (which renames every word) from candor's own
        # rename (identifiers only).
        new_function = "\nfn %s() {\n    // moved into %s\n    %s\n}\n" % (default_name, default_name, body)
    else:
        new_function = "\n\ndef %s():\n    %s\n" % (default_name, body)
    call = "%s();" % default_name if default_name == "fun_name" else "%s()" % default_name
    return version, [
        {"range": {"start": selection["start"], "end": selection["end"]}, "newText": call},
        {"range": {"start": end_position(text), "end": end_position(text)}, "newText": new_function},
    ]


def startup_progress():
    if SCENARIO == "command":
        return
    send({"jsonrpc": "2.0", "method": "experimental/serverStatus", "params": {"health": "ok", "quiescent": False}})
    send(
        {"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "idx", "value": {"kind": "begin", "title": "Indexing", "percentage": 0}}},
        {"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "idx", "value": {"kind": "report", "message": "1/2 — ünïcode", "percentage": 50}}},
    )
    if SCENARIO == "never_ready":
        return
    time.sleep(0.3)
    send(
        {"jsonrpc": "2.0", "method": "$/progress", "params": {"token": "idx", "value": {"kind": "end"}}},
        {"jsonrpc": "2.0", "method": "experimental/serverStatus", "params": {"health": "ok", "quiescent": True}},
    )


def handle(message):
    method = message.get("method")
    if method is None:
        # A reply to one of our requests.
        slot = pending_replies.get(message.get("id"))
        if slot is not None:
            slot[1] = message.get("result", message.get("error"))
            slot[0].set()
        return
    params = message.get("params") or {}
    if method == "initialize":
        if SCENARIO == "command":
            info = {"name": "pylsp", "version": "mock-1"}
            capabilities = {
                "codeActionProvider": True,
                "executeCommandProvider": {"commands": ["pylsp_rope.refactor.extract.method"]},
            }
        else:
            info = {"name": "rust-analyzer", "version": "mock-1 (ünï)"}
            capabilities = {
                "codeActionProvider": {"resolveProvider": True, "codeActionKinds": ["refactor.extract"]},
                "renameProvider": {"prepareProvider": True},
            }
        respond(message, {"capabilities": capabilities, "serverInfo": info})
    elif method == "initialized":
        threading.Thread(target=startup_progress, daemon=True).start()
        if SCENARIO == "noisy":
            for i in range(2000):
                sys.stderr.write("mock noise line %d — stderr must stay ours\n" % i)
            sys.stderr.flush()
            threading.Thread(target=lambda: server_request("mock/unknownRequest", {}), daemon=True).start()
    elif method == "textDocument/didOpen":
        doc = params["textDocument"]
        documents[doc["uri"]] = (doc["version"], doc["text"])
    elif method == "textDocument/didChange":
        doc = params["textDocument"]
        documents[doc["uri"]] = (doc["version"], params["contentChanges"][-1]["text"])
    elif method == "textDocument/didClose":
        documents.pop(params["textDocument"]["uri"], None)
    elif method == "$/cancelRequest":
        if SCENARIO == "cancellable":
            send({"jsonrpc": "2.0", "id": params["id"], "error": {"code": -32800, "message": "cancelled"}})
    elif method == "textDocument/codeAction":
        if SCENARIO in ("timeout", "cancellable"):
            return
        if SCENARIO == "crash":
            sys.stderr.write("mock: fatal error while computing code actions\n")
            sys.stderr.flush()
            os._exit(3)
        uri = params["textDocument"]["uri"]
        if SCENARIO == "command":
            arguments = [{"document_uri": uri, "range": params["range"], "global_": False, "similar": False}]
            respond(
                message,
                [
                    {"title": "Extract variable", "kind": "refactor.extract", "command": {"title": "Extract variable", "command": "pylsp_rope.refactor.extract.variable", "arguments": arguments}},
                    {"title": "Extract method", "kind": "refactor.extract", "command": {"title": "Extract method", "command": "pylsp_rope.refactor.extract.method", "arguments": arguments}},
                ],
            )
        else:
            data = {"uri": uri, "range": params["range"], "note": "données ✓"}
            respond(
                message,
                [
                    {"title": "Extract into variable", "kind": "refactor.extract", "data": data},
                    {"title": "Extract into function", "kind": "refactor.extract", "data": data},
                ],
            )
    elif method == "codeAction/resolve":
        data = params["data"]
        version, edits = extract_edit(data["uri"], data["range"], "fun_name")
        changes = [{"textDocument": {"uri": data["uri"], "version": version}, "edits": edits}]
        if SCENARIO == "outside":
            changes.append({"textDocument": {"uri": "file:///etc/candor-mock-outside.rs", "version": None}, "edits": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "newText": "x"}]})
        resolved = dict(params)
        resolved["edit"] = {"documentChanges": changes}
        respond(message, resolved)
    elif method == "workspace/executeCommand":
        arguments = params["arguments"][0]
        uri = arguments["document_uri"]
        _, edits = extract_edit(uri, arguments["range"], "extracted_method")
        # Like pylsp-rope: the edit goes to the client as a request of its own, and the
        # command is answered only after the client answered that request.
        answer = server_request("workspace/applyEdit", {"edit": {"changes": {uri: edits}}})
        if not (isinstance(answer, dict) and answer.get("applied")):
            sys.stderr.write("mock: applyEdit was not applied: %r\n" % (answer,))
        respond(message, None)
    elif method == "textDocument/rename":
        uri = params["textDocument"]["uri"]
        version, text = documents[uri]
        at = offset(text, params["position"])
        match = re.search(r"\w+", text[at:])
        old = match.group(0)
        edits = []
        for m in re.finditer(r"\b%s\b" % re.escape(old), text):
            edits.append({"range": {"start": position(text, m.start()), "end": position(text, m.end())}, "newText": params["newName"]})
        respond(message, {"documentChanges": [{"textDocument": {"uri": uri, "version": version}, "edits": edits}]})
    elif method == "shutdown":
        respond(message, None)
    elif method == "exit":
        sys.exit(0)
    elif "id" in message:
        send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "unknown method " + method}})


def main():
    while True:
        message = read()
        if message is None:
            return
        # Requests that wait on the client are handled off the reading thread, so the
        # client's answer can be read.
        if message.get("method") == "workspace/executeCommand":
            threading.Thread(target=handle, args=(message,), daemon=True).start()
        else:
            handle(message)


if __name__ == "__main__":
    main()
