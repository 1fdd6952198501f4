internal import CCurl

extension ChallengeCredential {
    /// Sets the options on `easy`.
    func apply(to easy: CurlEasyHandle) throws(RequestError) {
        var mask = 0
        if schemes.contains(.basic) { mask |= Int(ccurl_auth_basic) }
        if schemes.contains(.digest) { mask |= Int(ccurl_auth_digest) }
        if schemes.contains(.ntlm) { mask |= Int(ccurl_auth_ntlm) }
        try easy.set(CURLOPT_HTTP_VERSION, HTTPVersionPreference.http1_1.curlValue)
        try easy.set(CURLOPT_HTTPAUTH, mask)
        try easy.set(CURLOPT_USERNAME, username)
        try easy.set(CURLOPT_PASSWORD, password)
    }
}

extension CurlGlobal {
    /// Whether the linked libcurl was built with NTLM (`CURL_VERSION_NTLM`); without it, a
    /// credential whose only scheme is NTLM fails with curl's "not built in" error.
    static let supportsNTLM: Bool = {
        guard let info = curl_version_info(ccurl_version_now) else { return false }
        return info.pointee.features & CURL_VERSION_NTLM != 0
    }()
}
