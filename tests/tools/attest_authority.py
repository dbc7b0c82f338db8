# SPDX-License-Identifier: Apache-2.0
"""attest_authority.py - TEST FIXTURE, not part of isotier: a test authority
for the provider emulators' "attest" modes (emu_sandbox.py). It makes, once
per emulator, ARK and ASK keys (RSA-PSS SHA-384 certificates, as AMD's) and
a VCEK (ECDSA P-384, naming its chip in AMD's hwID extension and the TCB it
was issued for in AMD 57230's SPL extensions: bl 4, tee 0, snp 0x18, ucode
0xDB, at the minimum isotier ships for Milan), writes the
ARK and ASK as a roots directory for isotier (ISOTIER_ATTEST_ROOTS), and
signs SEV-SNP reports (AMD SEV-SNP ABI, ATTESTATION_REPORT v3, 0x4A0 bytes)
over the binding the probe would have asked for (ADR-0020), as the
confidential-VM host of an honest provider would. The modes make the
evidence of a dishonest one.
"""
import datetime
import hashlib
import os
import struct

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.x509.oid import NameOID

MODES = ["honest", "tampered", "replayed", "foreign", "shared", "debug", "migrate", "oldtcb"]
VCEK_GUID = bytes.fromhex("63da758de6644564adc5f4b93be8accd")
TCB = 0xDB18000000000004  # Milan layout: bl, tee, 4 reserved, snp, ucode


def kds_extensions():
    """AMD 57230's TCB SPL extensions (1.3.6.1.4.1.3704.1.3.N, DER INTEGERs)."""
    b = TCB.to_bytes(8, "little")
    at = {1: 0, 2: 1, 4: 2, 5: 3, 6: 4, 7: 5, 3: 6, 8: 7}  # SPL N -> byte
    out = []
    for n, i in sorted(at.items()):
        v = b[i]
        der = bytes([0x02, 0x02, 0x00, v]) if v > 127 else bytes([0x02, 0x01, v])
        out.append(x509.UnrecognizedExtension(
            x509.ObjectIdentifier("1.3.6.1.4.1.3704.1.3.%d" % n), der))
    return out


def binding(nonce, body):
    """SHA-512("isotier-attest/1\\0" || nonce || "\\0" || SHA-512(body))."""
    inner = hashlib.sha512(body).digest()
    return hashlib.sha512(b"isotier-attest/1\0" + nonce.encode() + b"\0" + inner).digest()


class Authority:
    def __init__(self, roots_dir, product="milan"):
        self.chip_id = os.urandom(64)
        now = datetime.datetime.now(datetime.timezone.utc)
        pss = padding.PSS(mgf=padding.MGF1(hashes.SHA384()), salt_length=48)
        ark_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        ask_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.vcek_key = ec.generate_private_key(ec.SECP384R1())

        def cert(cn, key, issuer, issuer_key, ca, extra=()):
            name = x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "isotier test authority"),
                              x509.NameAttribute(NameOID.COMMON_NAME, cn)])
            b = (x509.CertificateBuilder().subject_name(name)
                 .issuer_name(issuer.subject if issuer else name)
                 .public_key(key.public_key()).serial_number(x509.random_serial_number())
                 .not_valid_before(now - datetime.timedelta(days=1))
                 .not_valid_after(now + datetime.timedelta(days=365))
                 .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
            for e in extra:
                b = b.add_extension(e, critical=False)
            return b.sign(issuer_key, hashes.SHA384(), rsa_padding=pss)

        self.ark = cert("ARK-%s (test)" % product.capitalize(), ark_key, None, ark_key, True)
        self.ask = cert("SEV-%s (test)" % product.capitalize(), ask_key, self.ark, ark_key, True)
        hwid = x509.UnrecognizedExtension(x509.ObjectIdentifier("1.3.6.1.4.1.3704.1.4"),
                                          b"\x04\x40" + self.chip_id)
        self.vcek = cert("SEV-VCEK (test)", self.vcek_key, self.ask, ask_key, False,
                         [hwid] + kds_extensions())
        os.makedirs(roots_dir, exist_ok=True)
        for name, c in (("ark", self.ark), ("ask", self.ask)):
            with open(os.path.join(roots_dir, "amd_%s_%s.pem" % (product, name)), "wb") as f:
                f.write(c.public_bytes(serialization.Encoding.PEM))

    def report(self, report_data, report_id, policy=0x30000, tcb=TCB):
        """A signed ATTESTATION_REPORT (v3, Milan CPUID) over report_data,
        stating tcb (the VCEK's, unless a mode lies)."""
        r = bytearray(0x4A0)
        struct.pack_into("<IIQ", r, 0, 3, 1, policy)
        struct.pack_into("<II", r, 0x30, 0, 1)  # VMPL 0, ECDSA P-384 with SHA-384
        struct.pack_into("<Q", r, 0x38, tcb)
        r[0x50:0x90] = report_data
        r[0x90:0xC0] = b"\xab" * 48  # measurement
        r[0x140:0x160] = report_id
        struct.pack_into("<Q", r, 0x180, tcb)
        r[0x188], r[0x189] = 0x19, 0x01  # family 19h, model 01h: Milan
        r[0x1A0:0x1E0] = self.chip_id
        struct.pack_into("<QQ", r, 0x1E0, tcb, 0)
        struct.pack_into("<Q", r, 0x1F0, tcb)
        sig = self.vcek_key.sign(bytes(r[:0x2A0]), ec.ECDSA(hashes.SHA384()))
        rr, ss = decode_dss_signature(sig)
        r[0x2A0:0x2E8] = rr.to_bytes(72, "little")
        r[0x2E8:0x330] = ss.to_bytes(72, "little")
        return bytes(r)

    def auxblob(self):
        """The GHCB certificate table: the VCEK, then the all-zero entry."""
        der = self.vcek.public_bytes(serialization.Encoding.DER)
        table = VCEK_GUID + struct.pack("<II", 48, len(der)) + b"\0" * 24
        return table + der

    def attested_output(self, doc, nonce, report_id, mode):
        """The probe's output text for doc with an "attestation" member the
        way the probe prints it, its evidence made per mode."""
        import json
        body = (json.dumps(doc, indent=2) + "\n").encode()
        data = binding(nonce, body)
        policy = 0x30000
        if mode == "replayed":  # a report made for an earlier run's nonce
            data = binding("0" * 32, body)
        elif mode == "foreign":  # a report over another probe output
            other = dict(doc, observed_tier="CONTAINER")
            data = binding(nonce, (json.dumps(other, indent=2) + "\n").encode())
        elif mode == "debug":
            policy |= 1 << 19
        elif mode == "migrate":  # a migration agent may export the guest
            policy |= 1 << 18
        # "oldtcb": a VCEK issued for TCB signs a report stating a newer SNP SPL.
        tcb = TCB + (1 << 48) if mode == "oldtcb" else TCB
        rep = bytearray(self.report(data, report_id, policy, tcb))
        if mode == "tampered":
            rep[0x90] ^= 0x01  # the measurement, after signing
        member = {"interface": "configfs-tsm", "status": "ok", "provider": "sev_guest",
                  "generation": 1, "outblob": rep.hex(), "auxblob": self.auxblob().hex()}
        return body[:-3] + b',\n  "attestation": ' + json.dumps(member).encode() + b"\n}\n"
