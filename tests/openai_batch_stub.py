"""OpenAI's batch API on 127.0.0.1 (`/v1/files`, `/v1/batches`), for tests of `--batch`.

`OpenAIBatchStub` takes an uploaded JSONL file of chat-completion requests, answers each with
`OpenAIStub.respond` when a batch is created over it, and reports the batch completed on the
client's first check, its output file holding one result line per request. `batches` records the
number of requests in each batch, in the order they were created.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP

from openai_stub import Body, OpenAIStub


@dataclass
class OpenAIBatchStub(OpenAIStub):
    batches: list[int] = field(default_factory=list)  # requests per batch, in order
    files: dict[str, bytes] = field(default_factory=dict)
    jobs: dict[str, Body] = field(default_factory=dict)

    def post(self, path: str, content_type: str, raw: bytes) -> tuple[int, Body | bytes]:
        if path.endswith("/files"):
            return 200, self.upload(content_type, raw)
        if path.endswith("/batches"):
            return 200, self.create(json.loads(raw))
        return super().post(path, content_type, raw)

    def get(self, path: str) -> tuple[int, Body | bytes]:
        parts = path.rstrip("/").split("/")
        if parts[-2:-1] == ["batches"] and parts[-1] in self.jobs:
            return 200, {**self.jobs[parts[-1]], "status": "completed"}
        if parts[-1] == "content" and parts[-2] in self.files:
            return 200, self.files[parts[-2]]
        return super().get(path)

    def upload(self, content_type: str, raw: bytes) -> Body:
        form = BytesParser(policy=HTTP).parsebytes(
            b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + raw
        )
        [data] = [
            part.get_payload(decode=True)
            for part in form.iter_parts()
            if part.get_param("name", header="content-disposition") == "file"
        ]
        assert isinstance(data, bytes)
        with self._lock:
            file_id = f"file-{len(self.files)}"
            self.files[file_id] = data
        return self.file_object(file_id, len(data))

    def create(self, body: Body) -> Body:
        lines = [json.loads(line) for line in self.files[body["input_file_id"]].splitlines()]
        results = []
        for line in lines:
            status, answer = self.respond(line["body"])
            response = {"status_code": status, "request_id": line["custom_id"], "body": answer}
            results.append({"id": line["custom_id"], "custom_id": line["custom_id"],
                            "response": response, "error": None})  # fmt: skip
        output = "\n".join(json.dumps(r) for r in results).encode()
        with self._lock:
            batch_id, output_id = f"batch-{len(self.jobs)}", f"file-{len(self.files)}"
            self.files[output_id] = output
            self.batches.append(len(lines))
            self.jobs[batch_id] = {
                "id": batch_id,
                "object": "batch",
                "endpoint": body["endpoint"],
                "input_file_id": body["input_file_id"],
                "completion_window": body["completion_window"],
                "status": "in_progress",
                "created_at": 0,
                "output_file_id": output_id,
                "error_file_id": None,
                "request_counts": {"total": len(lines), "completed": len(lines), "failed": 0},
            }
        return {**self.jobs[batch_id], "output_file_id": None}

    @staticmethod
    def file_object(file_id: str, size: int) -> Body:
        return {"id": file_id, "object": "file", "bytes": size, "created_at": 0,
                "filename": "batch.jsonl", "purpose": "batch", "status": "processed"}  # fmt: skip
