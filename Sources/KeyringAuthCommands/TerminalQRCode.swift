import CQRCode

/// A QR code drawn with text, as `qrencode -t UTF8` draws one for a terminal with a dark background: light modules
/// (and the four-module quiet zone around the code) are the terminal's foreground, two rows of modules a line.
enum TerminalQRCode {
    /// The lines of the QR code of `text` (byte mode, error correction M), or `nil` when libqrencode cannot make one.
    static func lines(for text: String) -> [String]? {
        guard let code = QRcode_encodeString8bit(text, 0, QR_ECLEVEL_M) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let modules = UnsafeBufferPointer(start: code.pointee.data, count: width * width)
        /// Whether the module at `column`, `row` is dark; outside the code, the light quiet zone.
        func dark(_ column: Int, _ row: Int) -> Bool {
            (0..<width).contains(column) && (0..<width).contains(row) && modules[row * width + column] & 1 == 1
        }
        let margin = 4
        return stride(from: -margin, to: width + margin, by: 2).map { row in
            String((-margin..<(width + margin)).map { column -> Character in
                switch (dark(column, row), dark(column, row + 1)) {
                case (false, false): "█"
                case (false, true): "▀"
                case (true, false): "▄"
                case (true, true): " "
                }
            })
        }
    }
}
