"""A real MCP client for candor's tests: the official MCP Python SDK drives `candor mcp`.

Usage: python mcp_client.py CANDOR_BINARY ROOT JOB.json

JOB.json: {"env": {...}, "calls": [{"label", "tool", "arguments", "apply_after_preview"?: bool}],
"bad_calls": [{"label", "tool", "arguments"}]}. The script starts `candor mcp --root ROOT`
through the SDK's stdio transport, lists the tools, runs every call and prints one JSON summary
on stdout for the Rust test (tests/mcp_sdk.rs) to check. It asserts nothing about candor's
payloads itself; it only reports what the SDK received, and whether each structuredContent
validates against the tool's declared outputSchema.
"""

import asyncio
import importlib.metadata
import json
import sys
import warnings

import jsonschema
from mcp import Client, MCPDeprecationWarning, MCPError, StdioServerParameters

# `ping` is deprecated only for the 2026-07-28 revision; candor speaks the handshake revisions.
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)


def result_summary(result, output_schemas, tool):
    texts = [block.text for block in result.content if getattr(block, "type", None) == "text"]
    schema = output_schemas.get(tool)
    schema_error = None
    if schema is not None and result.structured_content is not None:
        errors = list(jsonschema.Draft202012Validator(schema).iter_errors(result.structured_content))
        if errors:
            schema_error = jsonschema.exceptions.best_match(errors).message
    return {
        "is_error": result.is_error,
        "structured": result.structured_content,
        "texts": texts,
        "schema_error": schema_error,
    }


async def call(client, tool, arguments, output_schemas):
    try:
        result = await client.call_tool(tool, arguments)
    except MCPError as error:
        return {"rpc_error": {"code": error.code, "message": error.message, "data": error.data}}
    return result_summary(result, output_schemas, tool)


async def main(binary, root, job_path):
    with open(job_path, encoding="utf-8") as f:
        job = json.load(f)
    params = StdioServerParameters(command=binary, args=["mcp", "--root", root], env=job.get("env") or None)
    summary = {"sdk_version": importlib.metadata.version("mcp"), "calls": {}, "bad_calls": {}}
    # mode="auto" (the SDK's default): probes `server/discover` first, then falls back to the
    # `initialize` handshake, as any client built on this SDK does.
    async with Client(params, read_timeout_seconds=120) as client:
        summary["protocol_version"] = client.protocol_version
        info = client.server_info
        summary["server_info"] = info.model_dump(by_alias=True, exclude_none=True) if info else None
        summary["capabilities"] = client.server_capabilities.model_dump(by_alias=True, exclude_none=True)
        summary["instructions"] = client.instructions
        await client.send_ping()
        listing = await client.list_tools()
        summary["tools"] = [tool.model_dump(by_alias=True, exclude_none=True) for tool in listing.tools]
        output_schemas = {tool.name: tool.output_schema for tool in listing.tools}

        for entry in job["calls"]:
            preview = await call(client, entry["tool"], entry["arguments"], output_schemas)
            record = {"preview": preview}
            if entry.get("apply_after_preview") and not preview.get("is_error", True):
                # The agent workflow: apply what was previewed, guarded by the previewed hashes.
                changes = preview["structured"]["data"]["changes"]
                expected = {c["path"]: c["sha256_before"] for c in changes if c["sha256_before"]}
                arguments = dict(entry["arguments"], dry_run=False, expected_sha256=expected)
                record["apply"] = await call(client, entry["tool"], arguments, output_schemas)
                # The same guarded apply again: the file no longer holds what was previewed.
                record["apply_again"] = await call(client, entry["tool"], arguments, output_schemas)
            summary["calls"][entry["label"]] = record

        for entry in job.get("bad_calls", []):
            summary["bad_calls"][entry["label"]] = await call(client, entry["tool"], entry["arguments"], output_schemas)

        # The session survived every bad call.
        await client.send_ping()
        summary["alive_at_end"] = True
    print(json.dumps(summary))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: mcp_client.py CANDOR_BINARY ROOT JOB.json")
    asyncio.run(main(*sys.argv[1:]))
