import Foundation

/// One figure a benchmark states, written as `Benchmarks/results/<id>.json` with the fields
/// `tools/figure` writes (README.md, "Results"); `tools/results` renders the files into
/// RESULTS.md and the repository README's headline table.
///
/// The machine is this one (cores, CPU model, load average), the date today's (UTC) and the
/// command this process's own unless one is given (a package-benchmark target's process is
/// started by the plugin, with the plugin's arguments). An existing file's `headline` flag
/// is kept. `FIGURES_DIR` names another folder than `Benchmarks/results`.
public struct BenchmarkFigure: Sendable {
    public var id: String
    public var figure: String
    public var value: String
    public var ratio: Double?
    public var baseline: String
    public var target: String
    public var met: String
    /// What measures the figure again; `nil`: this process's command line.
    public var command: String?

    public init(
        id: String, figure: String, value: String, ratio: Double? = nil,
        baseline: String = "—", target: String = "—", met: String = "—", command: String? = nil
    ) {
        self.id = id
        self.figure = figure
        self.value = value
        self.ratio = ratio
        self.baseline = baseline
        self.target = target
        self.met = met
        self.command = command
    }

    /// "yes" or "no".
    public static func met(_ condition: Bool) -> String { condition ? "yes" : "no" }

    /// The folder the figures go to: `FIGURES_DIR`, else `Benchmarks/results` beside this source.
    public static var directory: URL {
        if let directory = ProcessInfo.processInfo.environment["FIGURES_DIR"], !directory.isEmpty {
            return URL(fileURLWithPath: directory)
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "results")
    }

    /// Writes the figure to `<directory>/<id>.json`, says where on standard error (standard
    /// output may carry a benchmark's results), and returns the file.
    @discardableResult
    public func write() throws -> URL {
        let file = Self.directory.appending(path: id + ".json")
        var record: [String: Any] = [
            "id": id, "figure": figure, "value": value, "baseline": baseline, "target": target, "met": met,
            "machine": Self.machine(), "date": Self.today(), "command": command ?? Self.command(),
        ]
        if let ratio { record["ratio"] = (ratio * 10_000).rounded() / 10_000 }
        if let existing = try? Data(contentsOf: file),
            let object = try? JSONSerialization.jsonObject(with: existing) as? [String: Any],
            object["headline"] as? Bool == true
        {
            record["headline"] = true
        }
        try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
        var data = try JSONSerialization.data(withJSONObject: record, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        data.append(0x0A)
        try data.write(to: file, options: .atomic)
        FileHandle.standardError.write(Data("figure: \(file.path)\n".utf8))
        return file
    }

    /// Writes every figure; reports a failure on standard error instead of throwing, so that
    /// a benchmark's printed figures stand whatever happens to the files.
    public static func write(_ figures: [BenchmarkFigure]) {
        for figure in figures {
            do {
                try figure.write()
            } catch {
                FileHandle.standardError.write(Data("figure \(figure.id) not written: \(error)\n".utf8))
            }
        }
    }

    static func machine() -> String {
        let cpuInfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuInfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
        let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "?"
        return "\(ProcessInfo.processInfo.activeProcessorCount) cores, \(model), load average \(load)"
    }

    static func today() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date())
    }

    /// The process's command line, the program by its name.
    /// This process's command line, after the variables that choose what the profiles
    /// measure (`SIDE`, `VIPS_NOVECTOR`) when they are set.
    static func command() -> String {
        let arguments = CommandLine.arguments
        let name = URL(fileURLWithPath: arguments.first ?? "benchmark").lastPathComponent
        let environment = ProcessInfo.processInfo.environment
        let settings = ["SIDE", "VIPS_NOVECTOR"].compactMap { variable in environment[variable].map { "\(variable)=\($0)" } }
        return (settings + [name] + arguments.dropFirst()).joined(separator: " ")
    }
}
