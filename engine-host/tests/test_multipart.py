"""multipart/form-data parsing: what clients really send, and what must be refused (pure stdlib)."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from parley_engine_host import multipart  # noqa: E402

CT = "multipart/form-data; boundary=XyZ"


def part(headers: str, content: bytes) -> bytes:
    return b"--XyZ\r\n" + headers.encode() + b"\r\n\r\n" + content + b"\r\n"


class MultipartTest(unittest.TestCase):
    def test_fields_files_repeated_fields_and_a_preamble(self):
        body = (b"preamble a client may send\r\n"
                + part('Content-Disposition: form-data; name="language"', b"de")
                + part('Content-Disposition: form-data; name="timestamp_granularities[]"', b"word")
                + part('Content-Disposition: form-data; name="timestamp_granularities[]"', b"segment")
                + part('Content-Disposition: form-data; name="file"; filename="a; b \\"c\\".wav"\r\nContent-Type: audio/wav',
                       b"RIFF\r\n--XyZ-not-a-boundary\x00\xff")
                + b"--XyZ--\r\nepilogue")
        form = multipart.parse(body, CT)
        self.assertEqual(form.get("language"), "de")
        self.assertEqual(form.get_all("timestamp_granularities[]"), ["word", "segment"])
        self.assertEqual(form.files["file"].filename, 'a; b "c".wav')
        self.assertEqual(form.files["file"].content_type, "audio/wav")
        self.assertEqual(form.files["file"].data, b"RIFF\r\n--XyZ-not-a-boundary\x00\xff")

    def test_quoted_boundary_and_a_file_part_without_filename(self):
        body = part('Content-Disposition: form-data; name="file"', b"\x00\x01binary") + b"--XyZ--\r\n"
        form = multipart.parse(body, 'multipart/form-data; boundary="XyZ"')
        self.assertEqual(form.files["file"].data, b"\x00\x01binary")

    def test_refusals(self):
        cases = {
            "not multipart": (b"x", "application/json"),
            "no content type": (b"x", None),
            "no boundary param": (b"x", "multipart/form-data"),
            "boundary absent from body": (b"hello", CT),
            "unterminated": (b"--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue", CT),
            "headers never end": (b"--XyZ\r\nContent-Disposition: form-data; name=\"a\"" + b"x" * 9000, CT),
            "no name": (part("Content-Disposition: form-data", b"v") + b"--XyZ--", CT),
            "not form-data": (part('Content-Disposition: attachment; name="a"', b"v") + b"--XyZ--", CT),
            "header without colon": (part("garbage line", b"v") + b"--XyZ--", CT),
            "field not utf-8": (part('Content-Disposition: form-data; name="prompt"', b"\xff\xfe") + b"--XyZ--", CT),
            "field too long": (part('Content-Disposition: form-data; name="prompt"', b"a" * 70000) + b"--XyZ--", CT),
            "too many parts": (part('Content-Disposition: form-data; name="a"', b"v") * 65 + b"--XyZ--", CT),
            "bad delimiter line": (b"--XyZjunk\r\n", CT),
        }
        for label, (body, content_type) in cases.items():
            with self.subTest(label):
                with self.assertRaises(multipart.MultipartError):
                    multipart.parse(body, content_type)


if __name__ == "__main__":
    unittest.main()
