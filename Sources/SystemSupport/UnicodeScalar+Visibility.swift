extension Unicode.Scalar {
    /// Whether the scalar can steer a terminal or hide or reorder text instead of showing as itself:
    /// C0 and C1 controls and DEL (`Cc`), format characters such as bidi overrides and zero-width
    /// characters (`Cf`), line and paragraph separators (`Zl`, `Zp`), unassigned code points (`Cn`),
    /// and the other default-ignorable code points (fillers, variation selectors, tags).
    package var isControlOrInvisible: Bool {
        switch properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .unassigned, .surrogate:
            return true
        default:
            return properties.isDefaultIgnorableCodePoint
        }
    }
}
