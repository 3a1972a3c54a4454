extension String {
    /// The string with every scalar that `Unicode.Scalar.isControlOrInvisible` written as
    /// `\u{1B}` (uppercase hexadecimal), everything else unchanged: stored or received text made
    /// safe to print to a terminal on one line. An escape is never split: escape whole values,
    /// after any shortening.
    package var escapedForTerminal: String {
        guard unicodeScalars.contains(where: \.isControlOrInvisible) else { return self }
        var escaped = ""
        escaped.reserveCapacity(utf8.count + 8)
        for scalar in unicodeScalars {
            if scalar.isControlOrInvisible {
                escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }
}
