#!/usr/bin/env bash
# Makes the test server's certificates with the openssl command-line tool (3.0 or later) and writes
# them as Swift string constants to Sources/CurlBridgeTestServer/TestCertificates.swift and
# TestCertificates+Scenarios.swift. Run it only to replace them: every run makes new keys, so the
# pins in the output change. The keys protect nothing: they only serve loopback tests.
#
# Everything is ECDSA P-256 and valid from 2020-01-01 to 2125-12-31, except the expired leaf
# (2020-01-01 to 2021-01-01):
#   test CA (CN=CurlBridge Test CA)          signs: server, expired, wrong-host, client
#   server        IP:127.0.0.1 DNS:localhost  the normal TLS certificate
#   expired       IP:127.0.0.1 DNS:localhost  expired in 2021
#   wrong-host    DNS:other.invalid           names no host the tests connect to
#   self-signed   IP:127.0.0.1 DNS:localhost  signs itself
#   unknown CA (CN=CurlBridge Unknown CA)     signs: unknown-ca leaf (IP:127.0.0.1 DNS:localhost)
#   client        CN=CurlBridge Test Client   clientAuth, for mutual TLS; also as PKCS#12
#   stranger      CN=CurlBridge Stranger      a client certificate signed by the unknown CA
set -euo pipefail
cd "$(dirname "$0")/.."
out_dir=Sources/CurlBridgeTestServer
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

long_start=20200101000000Z
long_end=21251231235959Z
p12_passphrase=curlbridge

cat >"$work/ca.cnf" <<'EOF'
[ca]
default_ca = ca_section
[ca_section]
database = $ENV::CA_DIR/index.txt
new_certs_dir = $ENV::CA_DIR
serial = $ENV::CA_DIR/serial
default_md = sha256
policy = policy_any
unique_subject = no
copy_extensions = none
[policy_any]
commonName = supplied
[req]
distinguished_name = req_dn
prompt = no
[req_dn]
CN = placeholder
[authority]
basicConstraints = critical, CA:true
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[loopback_server]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[wrong_host_server]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:other.invalid
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
[self_signed_server]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature, keyCertSign
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
subjectKeyIdentifier = hash
[client]
basicConstraints = critical, CA:false
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
EOF

# new_key NAME: a P-256 key in PKCS#8 PEM at $work/NAME.key.
new_key() {
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$work/$1.key" 2>/dev/null
}

# sign NAME CN SIGNER EXTENSIONS START END: a certificate for NAME's key at $work/NAME.pem, signed
# by SIGNER's key and certificate (or by NAME itself when SIGNER is "self").
sign() {
    local name=$1 cn=$2 signer=$3 extensions=$4 start=$5 end=$6
    local issuer=$signer signing=(-cert "$work/$signer.pem" -keyfile "$work/$signer.key")
    if [ "$signer" = self ]; then issuer=$name signing=(-selfsign -keyfile "$work/$name.key"); fi
    local dir="$work/db-$issuer"
    if [ ! -d "$dir" ]; then mkdir "$dir"; : >"$dir/index.txt"; echo 01 >"$dir/serial"; fi
    CA_DIR=$dir openssl req -new -config "$work/ca.cnf" -key "$work/$name.key" -subj "/CN=$cn" -out "$work/$name.csr"
    CA_DIR=$dir openssl ca -batch -notext -config "$work/ca.cnf" "${signing[@]}" \
        -extensions "$extensions" -startdate "$start" -enddate "$end" \
        -in "$work/$name.csr" -out "$work/$name.pem" 2>/dev/null
}

# spki_pin NAME: curl's pin of NAME's key: sha256// and the base64 SHA-256 of the DER SPKI.
spki_pin() {
    printf 'sha256//%s' "$(openssl pkey -in "$work/$1.key" -pubout -outform DER | openssl dgst -sha256 -binary | base64)"
}

new_key ca && sign ca "CurlBridge Test CA" self authority $long_start $long_end
new_key server && sign server localhost ca loopback_server $long_start $long_end
new_key expired && sign expired localhost ca loopback_server $long_start 20210101000000Z
new_key wrong-host && sign wrong-host other.invalid ca wrong_host_server $long_start $long_end
new_key self-signed && sign self-signed localhost self self_signed_server $long_start $long_end
new_key unknown-ca && sign unknown-ca "CurlBridge Unknown CA" self authority $long_start $long_end
new_key unknown-ca-server && sign unknown-ca-server localhost unknown-ca loopback_server $long_start $long_end
new_key client && sign client "CurlBridge Test Client" ca client $long_start $long_end
new_key stranger && sign stranger "CurlBridge Stranger" unknown-ca client $long_start $long_end
openssl pkcs12 -export -in "$work/client.pem" -inkey "$work/client.key" -name "CurlBridge Test Client" \
    -passout "pass:$p12_passphrase" -out "$work/client.p12"

# Checks: each certificate verifies (or fails) as its scenario needs.
openssl verify -CAfile "$work/ca.pem" "$work/server.pem" "$work/client.pem" >/dev/null
openssl verify -CAfile "$work/unknown-ca.pem" "$work/unknown-ca-server.pem" "$work/stranger.pem" >/dev/null
! openssl verify -CAfile "$work/ca.pem" "$work/expired.pem" >/dev/null 2>&1

# swift_string NAME FILE: an indented multi-line string literal of FILE.
swift_string() {
    printf '    static let %s = """\n' "$1"
    sed 's/^/        /' "$2"
    printf '        """\n'
}

{
    cat <<'EOF'
// Generated by scripts/make-test-certificates.sh; do not edit by hand.

/// The test-only certificate authority, server certificate and server key, made with the
/// `openssl` command-line tool by `scripts/make-test-certificates.sh` and committed (the keys
/// protect nothing: they only serve loopback tests).
///
/// All are ECDSA P-256, valid from 2020-01-01 to 2125-12-31. The server certificate covers
/// `IP:127.0.0.1` and `DNS:localhost` and is signed by the CA (`CN=CurlBridge Test CA`).
enum TestCertificates {
    /// PEM of the self-signed test CA that signed ``serverCertificate``.
EOF
    swift_string certificateAuthority "$work/ca.pem"
    printf '\n    /// PEM of the server certificate presented on the TLS port.\n'
    swift_string serverCertificate "$work/server.pem"
    printf '\n    /// PEM (PKCS#8) of the server certificate'"'"'s private key.\n'
    swift_string serverPrivateKey "$work/server.key"
    cat <<EOF

    /// The server key's pin in the form libcurl's \`CURLOPT_PINNEDPUBLICKEY\` takes: \`sha256//\` and the
    /// base64 SHA-256 digest of the DER SubjectPublicKeyInfo.
    static let serverPublicKeyPin = "$(spki_pin server)"
}
EOF
} >"$out_dir/TestCertificates.swift"

{
    cat <<'EOF'
// Generated by scripts/make-test-certificates.sh; do not edit by hand.

/// The certificates of the TLS scenario listeners (see ``TLSScenario``), made with
/// ``TestCertificates`` by `scripts/make-test-certificates.sh`. ECDSA P-256, valid from
/// 2020-01-01 to 2125-12-31 unless said otherwise.
extension TestCertificates {
    /// Leaf for `IP:127.0.0.1` and `DNS:localhost`, signed by the test CA, valid only from
    /// 2020-01-01 to 2021-01-01.
EOF
    swift_string expiredCertificate "$work/expired.pem"
    printf '\n    /// The key of ``expiredCertificate``.\n'
    swift_string expiredPrivateKey "$work/expired.key"
    printf '\n    /// Leaf signed by the test CA for `DNS:other.invalid` only.\n'
    swift_string wrongHostCertificate "$work/wrong-host.pem"
    printf '\n    /// The key of ``wrongHostCertificate``.\n'
    swift_string wrongHostPrivateKey "$work/wrong-host.key"
    printf '\n    /// Self-signed leaf for `IP:127.0.0.1` and `DNS:localhost`.\n'
    swift_string selfSignedCertificate "$work/self-signed.pem"
    printf '\n    /// The key of ``selfSignedCertificate``.\n'
    swift_string selfSignedPrivateKey "$work/self-signed.key"
    printf '\n    /// A second CA (`CN=CurlBridge Unknown CA`) that no test trusts unless it says so.\n'
    swift_string unknownCertificateAuthority "$work/unknown-ca.pem"
    printf '\n    /// Leaf for `IP:127.0.0.1` and `DNS:localhost`, signed by ``unknownCertificateAuthority``.\n'
    swift_string unknownAuthorityServerCertificate "$work/unknown-ca-server.pem"
    printf '\n    /// The key of ``unknownAuthorityServerCertificate``.\n'
    swift_string unknownAuthorityServerPrivateKey "$work/unknown-ca-server.key"
    printf '\n    /// Client certificate (`CN=CurlBridge Test Client`, clientAuth) signed by the test CA.\n'
    swift_string clientCertificate "$work/client.pem"
    printf '\n    /// The key of ``clientCertificate`` (PKCS#8).\n'
    swift_string clientPrivateKey "$work/client.key"
    cat <<EOF

    /// ``clientCertificate`` and its key as PKCS#12, base64; its passphrase is
    /// ``clientPKCS12Passphrase``.
    static let clientPKCS12Base64 = "$(base64 -w0 "$work/client.p12")"

    /// The passphrase of ``clientPKCS12Base64``.
    static let clientPKCS12Passphrase = "$p12_passphrase"

EOF
    printf '    /// Client certificate (`CN=CurlBridge Stranger`) signed by ``unknownCertificateAuthority``.\n'
    swift_string strangerCertificate "$work/stranger.pem"
    printf '\n    /// The key of ``strangerCertificate``.\n'
    swift_string strangerPrivateKey "$work/stranger.key"
    cat <<EOF

    /// The pin (\`sha256//…\`) of ``unknownAuthorityServerCertificate``'s key.
    static let unknownAuthorityServerPublicKeyPin = "$(spki_pin unknown-ca-server)"
}
EOF
} >"$out_dir/TestCertificates+Scenarios.swift"

echo "wrote $out_dir/TestCertificates.swift and $out_dir/TestCertificates+Scenarios.swift"
