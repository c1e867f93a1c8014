extension ImageError {
    /// The reason of a ``credentialsUnavailable(_:)``, to go on after the name of the source
    /// that depended on it; any other error whole.
    var credentialsReason: String {
        if case .credentialsUnavailable(let reason) = self { return reason }
        return description
    }
}
