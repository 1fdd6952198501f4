/// The `curl` arguments for what ``Request/curlDescription(for:revealingSecrets:)`` cannot say
/// with headers: a challenged credential, the Unix socket and local binding (connection ages have
/// no command-line flag).
enum CurlDescriptionWords {
    static func authenticationAndConnection(
        _ authentication: ChallengeCredential?, _ configuration: Configuration, revealingSecrets: Bool
    ) -> [String] {
        var words: [String] = []
        if let authentication {
            switch authentication.schemes {
            case .digest: words.append("--digest")
            case .ntlm: words.append("--ntlm")
            case .basic: words.append("--basic")
            default: words.append("--anyauth")  // approximate: the command line tool's set is wider
            }
            let password = revealingSecrets ? authentication.password : "<redacted>"
            words += ["--user", ShellWord.quoted("\(authentication.username):\(password)")]
        }
        if let path = configuration.unixSocketPath { words += ["--unix-socket", ShellWord.quoted(path)] }
        if let binding = configuration.localBinding {
            words += ["--interface", ShellWord.quoted(binding.curlInterface)]
            if let ports = binding.ports { words += ["--local-port", "\(ports.lowerBound)-\(ports.upperBound)"] }
        }
        return words
    }
}
