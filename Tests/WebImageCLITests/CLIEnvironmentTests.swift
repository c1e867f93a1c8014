import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// Writing the environment while another thread reads it is unsafe in glibc (`setenv` may
/// move the array a concurrent `getenv` or `Process.run` walks), so `webimage` writes it
/// only while it has one thread: before `main`, or never.
@Suite("The environment is written only before threads exist")
struct CLIEnvironmentTests {
    /// A preloaded library that logs each `setenv`, `unsetenv`, `putenv` and `clearenv`
    /// of the process as "<call> <name> <threads the process had>" to `$WEBIMAGE_ENV_LOG`.
    static let recorderSource = #"""
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <fcntl.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include <unistd.h>

        static char log_path[4096];

        __attribute__((constructor)) static void recorder_start(void) {
            const char *path = getenv("WEBIMAGE_ENV_LOG");
            if (path != NULL) snprintf(log_path, sizeof log_path, "%s", path);
        }

        static long threads(void) {
            char text[4096];
            int fd = open("/proc/self/status", O_RDONLY);
            if (fd < 0) return -1;
            ssize_t n = read(fd, text, sizeof text - 1);
            close(fd);
            if (n <= 0) return -1;
            text[n] = 0;
            const char *line = strstr(text, "\nThreads:");
            return line == NULL ? -1 : strtol(line + 9, NULL, 10);
        }

        static void record(const char *call, const char *name) {
            if (log_path[0] == 0) return;
            int fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT, 0600);
            if (fd < 0) return;
            char line[512];
            int length = snprintf(line, sizeof line, "%s %.*s %ld\n", call, (int)strcspn(name, "="), name, threads());
            if (length > (int)sizeof line - 1) length = (int)sizeof line - 1;
            if (length > 0) write(fd, line, length);
            close(fd);
        }

        int setenv(const char *name, const char *value, int replace) {
            record("setenv", name);
            return ((int (*)(const char *, const char *, int))dlsym(RTLD_NEXT, "setenv"))(name, value, replace);
        }
        int unsetenv(const char *name) {
            record("unsetenv", name);
            return ((int (*)(const char *))dlsym(RTLD_NEXT, "unsetenv"))(name);
        }
        int putenv(char *string) {
            record("putenv", string);
            return ((int (*)(char *))dlsym(RTLD_NEXT, "putenv"))(string);
        }
        int clearenv(void) {
            record("clearenv", "");
            return ((int (*)(void))dlsym(RTLD_NEXT, "clearenv"))();
        }
        """#

    /// Compiles ``recorderSource`` into `directory` with the first C compiler on `PATH`.
    static func buildRecorder(in directory: URL) throws -> String {
        let source = directory.appendingPathComponent("environment-recorder.c")
        let library = directory.appendingPathComponent("environment-recorder.so")
        try recorderSource.write(to: source, atomically: true, encoding: .utf8)
        let searchPath = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        let compiler = ["cc", "gcc", "clang"].lazy
            .flatMap { name in searchPath.map { "\($0)/\(name)" } }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        let found = try #require(compiler, "no C compiler (cc, gcc or clang) on PATH to build the environment recorder")
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: found)
        process.arguments = ["-shared", "-fPIC", "-O1", "-o", library.path, source.path, "-ldl"]
        let diagnostics = Pipe()
        process.standardError = diagnostics
        try process.run()
        let reason = String(decoding: diagnostics.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(found) could not build the environment recorder: \(reason)")
        return library.path
    }

    @Test("libvips' start-up, on the first image, writes nothing to the environment once threads run")
    func environmentWrittenBeforeThreads() async throws {
        let sandbox = try CLISandbox()
        defer { sandbox.remove() }
        let recorder = try Self.buildRecorder(in: sandbox.root)
        let log = sandbox.root.appendingPathComponent("environment.log").path
        try TestImages.encode(try TestImages.quadrants(width: 8, height: 6), as: .png).write(to: URL(fileURLWithPath: sandbox.path("small.png")))

        // Without VIPSHOME, libvips has its prefix to store; VIPS_WARNING is left unset too.
        let result = try await sandbox.run(
            ["info", "small.png", "--json"],
            environmentChanges: ["LD_PRELOAD": recorder, "WEBIMAGE_ENV_LOG": log, "VIPSHOME": nil, "VIPS_WARNING": nil]
        )
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.jsonLines().first?["width"] as? Int == 8)

        let writes = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map { $0.split(separator: " ") }
        // The prefix is stored, once, before main.
        #expect(writes.filter { $0.count == 3 && $0[1] == "VIPSHOME" }.map { String($0[2]) } == ["1"], "\(writes)")
        let whileThreaded = writes.filter { $0.count != 3 || $0[2] != "1" }
        #expect(whileThreaded.isEmpty, "environment written while the process had other threads: \(whileThreaded)")
    }
}
