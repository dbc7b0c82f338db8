#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""dsse_verify.py ENVELOPES PUBKEY - checks isotier's signed statements with an
implementation that shares no code with isotier: Python's json and base64 and
the `cryptography` package (Debian's python3-cryptography) over the DSSE
protocol as its specification writes it (PAE, then Ed25519 over it) and the
in-toto Statement v1 layout. ENVELOPES: one DSSE envelope per line. Prints
"verified N" and exits 0 when every envelope verifies, else 1 naming the line.
"""
import base64
import hashlib
import json
import sys

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey


def pae(payload_type: str, payload: bytes) -> bytes:
    """DSSE v1 pre-authentication encoding (protocol.md)."""
    t = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(t), t, len(payload), payload)


def b64(s: str) -> bytes:
    s = s.replace("-", "+").replace("_", "/")
    return base64.b64decode(s + "=" * (-len(s) % 4), validate=True)


def main() -> int:
    envelopes, pub_path = sys.argv[1], sys.argv[2]
    with open(pub_path, "rb") as f:
        key = serialization.load_pem_public_key(f.read())
    assert isinstance(key, Ed25519PublicKey), "not an Ed25519 key"
    der = key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    key_id = hashlib.sha256(der).hexdigest()
    n = 0
    with open(envelopes, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            env = json.loads(line)
            if env.get("payloadType") != "application/vnd.in-toto+json":
                print(f"line {i}: payloadType {env.get('payloadType')!r}")
                return 1
            body = b64(env["payload"])
            ok = False
            for sig in env.get("signatures", []):
                if sig.get("keyid") not in (None, "", key_id):
                    continue
                try:
                    key.verify(b64(sig["sig"]), pae(env["payloadType"], body))
                    ok = True
                except InvalidSignature:
                    pass
            if not ok:
                print(f"line {i}: no signature verifies against key {key_id[:16]}")
                return 1
            st = json.loads(body)
            if st.get("_type") != "https://in-toto.io/Statement/v1":
                print(f"line {i}: _type {st.get('_type')!r}")
                return 1
            subject = st.get("subject") or []
            if not subject or not all(isinstance(s.get("digest"), dict) and s["digest"] for s in subject):
                print(f"line {i}: a subject without a digest")
                return 1
            if not isinstance(st.get("predicateType"), str) or "predicate" not in st:
                print(f"line {i}: no predicate")
                return 1
            n += 1
    print(f"verified {n}")
    return 0 if n else 1


if __name__ == "__main__":
    sys.exit(main())
