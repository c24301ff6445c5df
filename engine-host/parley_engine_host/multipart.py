"""multipart/form-data parsing for an in-memory body, strict and bounded.

The caller has already read the body under a size limit; this module only splits it. Anything
malformed raises MultipartError (the HTTP layer turns it into a 400), never a crash.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_PARTS = 64
MAX_FIELD_BYTES = 64 * 1024  # text fields (prompt, hotwords...); files are bounded by the body limit
MAX_PART_HEADER_BYTES = 8 * 1024
FILE_FIELDS = {"file"}  # binary even when a client omits the filename parameter


class MultipartError(ValueError):
    pass


@dataclass
class FilePart:
    filename: str
    content_type: str
    data: bytes


@dataclass
class Form:
    fields: dict[str, list[str]] = field(default_factory=dict)
    files: dict[str, FilePart] = field(default_factory=dict)

    def get(self, name: str) -> str | None:
        values = self.fields.get(name)
        return values[-1] if values else None

    def get_all(self, name: str) -> list[str]:
        return self.fields.get(name, [])


def parse_header_params(value: str) -> tuple[str, dict[str, str]]:
    """'form-data; name="file"; filename="a b.wav"' -> ('form-data', {name:..., filename:...})."""
    main, _, rest = value.partition(";")
    params: dict[str, str] = {}
    i, n = 0, len(rest)
    while i < n:
        while i < n and rest[i] in " \t;":
            i += 1
        eq = rest.find("=", i)
        if eq < 0:
            break
        key = rest[i:eq].strip().lower()
        i = eq + 1
        if i < n and rest[i] == '"':
            i += 1
            chars = []
            while i < n and rest[i] != '"':
                if rest[i] == "\\" and i + 1 < n:
                    i += 1
                chars.append(rest[i])
                i += 1
            i += 1  # closing quote
            params[key] = "".join(chars)
        else:
            end = rest.find(";", i)
            end = n if end < 0 else end
            params[key] = rest[i:end].strip()
            i = end
    return main.strip().lower(), params


def boundary_of(content_type: str | None) -> bytes:
    if not content_type:
        raise MultipartError("Content-Type must be multipart/form-data")
    kind, params = parse_header_params(content_type)
    if kind != "multipart/form-data":
        raise MultipartError(f"Content-Type must be multipart/form-data, not {kind}")
    boundary = params.get("boundary", "")
    if not 1 <= len(boundary) <= 200:
        raise MultipartError("multipart boundary missing or invalid")
    return boundary.encode("latin-1", "replace")


def parse(body: bytes, content_type: str | None) -> Form:
    delimiter = b"--" + boundary_of(content_type)
    start = body.find(delimiter)
    if start < 0:
        raise MultipartError("multipart body has no boundary")
    form = Form()
    position = start + len(delimiter)
    parts = 0
    while True:
        if body.startswith(b"--", position):
            return form  # closing delimiter
        while body[position:position + 1] in (b" ", b"\t"):
            position += 1  # transport padding
        if not body.startswith(b"\r\n", position):
            raise MultipartError("malformed multipart delimiter line")
        position += 2
        header_end = body.find(b"\r\n\r\n", position, position + MAX_PART_HEADER_BYTES + 4)
        if header_end < 0:
            raise MultipartError("multipart part headers missing or too long")
        headers = parse_part_headers(body[position:header_end])
        content_start = header_end + 4
        next_delimiter = find_delimiter(body, delimiter, content_start)
        parts += 1
        if parts > MAX_PARTS:
            raise MultipartError(f"more than {MAX_PARTS} multipart parts")
        add_part(form, headers, body[content_start:next_delimiter])
        position = next_delimiter + 2 + len(delimiter)


def find_delimiter(body: bytes, delimiter: bytes, start: int) -> int:
    """Position of the next CRLF + delimiter that ends a part: one followed by CRLF, "--" or
    transport padding (RFC 2046), not one that merely begins with the boundary's bytes."""
    marker = b"\r\n" + delimiter
    position = body.find(marker, start)
    while position >= 0:
        after = body[position + len(marker): position + len(marker) + 2]
        if after in (b"\r\n", b"--") or after[:1] in (b" ", b"\t"):
            return position
        position = body.find(marker, position + 1)
    raise MultipartError("multipart body ends before its closing boundary")


def parse_part_headers(raw: bytes) -> dict[str, str]:
    headers = {}
    for line in raw.decode("utf-8", "replace").split("\r\n"):
        name, sep, value = line.partition(":")
        if not sep:
            raise MultipartError("malformed multipart part header")
        headers[name.strip().lower()] = value.strip()
    return headers


def add_part(form: Form, headers: dict[str, str], content: bytes) -> None:
    disposition, params = parse_header_params(headers.get("content-disposition", ""))
    name = params.get("name")
    if disposition != "form-data" or not name:
        raise MultipartError("multipart part without Content-Disposition: form-data; name=...")
    if "filename" in params or name in FILE_FIELDS:
        form.files[name] = FilePart(params.get("filename", ""), headers.get("content-type", ""), content)
        return
    if len(content) > MAX_FIELD_BYTES:
        raise MultipartError(f"field {name!r} is longer than {MAX_FIELD_BYTES} bytes")
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as error:
        raise MultipartError(f"field {name!r} is not UTF-8") from error
    form.fields.setdefault(name, []).append(text)
