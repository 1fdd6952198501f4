extension String {
    /// This host name as host names compare in pin tables: lowercased, without
    /// the brackets of an IPv6 literal or a trailing dot (`[::1]` is `::1`, `Example.COM.` is
    /// `example.com`).
    var comparableHostName: String {
        var name = lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix("."), name.count > 1 { name.removeLast() }
        return name
    }
}
