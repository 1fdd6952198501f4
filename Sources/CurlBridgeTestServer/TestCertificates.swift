/// The test-only certificate authority, server certificate and server key, generated once with the
/// `openssl` command-line tool and committed (the key protects nothing: it only serves loopback tests).
///
/// Both certificates are ECDSA P-256, valid from 2020-01-01 to 2125-12-31. The server certificate
/// covers `IP:127.0.0.1` and `DNS:localhost` and is signed by the CA (`CN=CurlBridge Test CA`).
enum TestCertificates {
    /// PEM of the self-signed test CA that signed ``serverCertificate``.
    static let certificateAuthority = """
        -----BEGIN CERTIFICATE-----
        MIIBbTCCAROgAwIBAgIBATAKBggqhkjOPQQDAjAdMRswGQYDVQQDDBJDdXJsQnJp
        ZGdlIFRlc3QgQ0EwIBcNMjAwMTAxMDAwMDAwWhgPMjEyNTEyMzEyMzU5NTlaMB0x
        GzAZBgNVBAMMEkN1cmxCcmlkZ2UgVGVzdCBDQTBZMBMGByqGSM49AgEGCCqGSM49
        AwEHA0IABK9vFzZZzBAd4XnPhxqv7r1/+soJhqD1HBzgOIjPzpRKs4/CbXKV7SbF
        OLXGvqkGqmS9cDx5dap5jg+dE7Wq51ijQjBAMA8GA1UdEwEB/wQFMAMBAf8wDgYD
        VR0PAQH/BAQDAgEGMB0GA1UdDgQWBBQurBYohD+Nj8jxtPdwBzqr1YawqzAKBggq
        hkjOPQQDAgNIADBFAiB+/ZHzFhvZakVSDQiVSiECeMstv4wzxsq1OC57uv37eQIh
        AJZWcKOBZsk1MDxT4M4DkI4plzvjLaWpUJO31wbci4cU
        -----END CERTIFICATE-----
        """

    /// PEM of the server certificate presented on the TLS port.
    static let serverCertificate = """
        -----BEGIN CERTIFICATE-----
        MIIBtTCCAVugAwIBAgIBAjAKBggqhkjOPQQDAjAdMRswGQYDVQQDDBJDdXJsQnJp
        ZGdlIFRlc3QgQ0EwIBcNMjAwMTAxMDAwMDAwWhgPMjEyNTEyMzEyMzU5NTlaMBQx
        EjAQBgNVBAMMCWxvY2FsaG9zdDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABMgE
        7e+AQOTD+GOVS7ZWg1Z1UUGHF26eOj/sp9G8UZlFaLiPoip0GYu9zAyqIEIfkifi
        LSIHlkYMS3zspWPUBMSjgZIwgY8wDAYDVR0TAQH/BAIwADAOBgNVHQ8BAf8EBAMC
        B4AwEwYDVR0lBAwwCgYIKwYBBQUHAwEwGgYDVR0RBBMwEYcEfwAAAYIJbG9jYWxo
        b3N0MB8GA1UdIwQYMBaAFC6sFiiEP42PyPG093AHOqvVhrCrMB0GA1UdDgQWBBTE
        0MO8j4ac4T9DUyT2fRUgon8wjTAKBggqhkjOPQQDAgNIADBFAiBs/58D2hpQic5K
        fVzSBTurfHyv8+2GA5LzzREMaPfdgwIhAJ2U5fOWkryprD0ZwHGiOR96MLgoTbA6
        r0PdkrCtcCGH
        -----END CERTIFICATE-----
        """

    /// PEM (PKCS#8) of the server certificate's private key.
    static let serverPrivateKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgWMq6Edf+2hWvtSPB
        CoV2CEq6pk0x9uwfynKuOLidwAChRANCAATIBO3vgEDkw/hjlUu2VoNWdVFBhxdu
        njo/7KfRvFGZRWi4j6IqdBmLvcwMqiBCH5In4i0iB5ZGDEt87KVj1ATE
        -----END PRIVATE KEY-----
        """

    /// The server key's pin in the form libcurl's `CURLOPT_PINNEDPUBLICKEY` takes: `sha256//` and the
    /// base64 SHA-256 digest of the DER SubjectPublicKeyInfo.
    static let serverPublicKeyPin = "sha256//KIErklb9oY1l0o5C7qGCmmmmwC8zrqW/wlaoSVvjIUo="
}
