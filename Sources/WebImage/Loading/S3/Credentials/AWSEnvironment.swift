import Foundation

/// The AWS variables of an environment, read as the AWS SDKs read them: a value is trimmed,
/// and an empty one counts as unset.
struct AWSEnvironment: Sendable {
    /// The variables as given.
    let variables: [String: String]

    init(_ variables: [String: String]) {
        self.variables = variables
    }

    /// The trimmed value of `name`, or `nil` when it is unset or empty.
    subscript(_ name: String) -> String? {
        guard let text = variables[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }

    /// Whether `name` is set to `true` (any case), as `AWS_EC2_METADATA_DISABLED` is.
    func isTrue(_ name: String) -> Bool {
        self[name]?.lowercased() == "true"
    }
}
