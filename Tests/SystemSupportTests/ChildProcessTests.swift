#if canImport(Glibc)
import Glibc
#endif
import ProcessSpawning
import SystemPackage
import Testing

/// The one spawn of every child restored waits for: what the child gets,
/// and its exit through the pidfd.
@Suite struct ChildProcessTests {
    @Test("A channel becomes descriptor 3, the streams go where asked, and nothing else of the caller is inherited")
    func descriptors() throws {
        let pipe = try FileDescriptor.pipe()
        defer { try? pipe.readEnd.close() }
        // Close-on-exec, so that no child another test starts meanwhile keeps the pipe open.
        for end in [pipe.readEnd, pipe.writeEnd] { _ = fcntl(end.rawValue, F_SETFD, FD_CLOEXEC) }
        // An extra descriptor of the caller, without close-on-exec: it must not reach the child.
        let stray = try FileDescriptor.open("/dev/null", .readOnly)
        defer { try? stray.close() }
        let child: ChildProcess
        do {
            defer { try? pipe.writeEnd.close() }
            child = try ChildProcess.spawn(
                "/bin/sh", arguments: ["sh", "-c", "ls /proc/self/fd >&3; readlink /proc/self/fd/0 >&3; echo pg $(ps -o pgid= $$) $$ >&3"],
                environment: ["PATH": "/usr/bin:/bin"],
                options: SpawnOptions(input: .null, output: .null, errors: .null, channel: pipe.writeEnd, ownProcessGroup: true)
            )
        }
        #expect(child.reap(within: .seconds(30)) == .exited(0))
        var text = ""
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try pipe.readEnd.read(into: $0) }
            if count == 0 { break }
            text += String(decoding: buffer[..<count], as: UTF8.self)
        }
        let lines = text.split(separator: "\n").map(String.init)
        // 0-3, and the one ls reads its directory with.
        #expect(lines.prefix(5) == ["0", "1", "2", "3", "4"])
        #expect(lines.dropFirst(5).first == "/dev/null")
        let group = lines.last?.split(separator: " ").map(String.init) ?? []
        #expect(group.count == 3 && group[1] == group[2], "the child leads its own process group: \(lines)")
    }

    @Test("An exec that fails is the errno of the exec")
    func execFailure() {
        #expect(throws: Errno.noSuchFileOrDirectory) {
            _ = try ChildProcess.spawn("/nonexistent/program", arguments: ["program"], environment: [:])
        }
    }

    @Test("wait(until:) returns nil at its deadline for a child that goes on; reap(within:) then kills it")
    func deadline() throws {
        let child = try ChildProcess.spawn("/bin/sleep", arguments: ["sleep", "60"], environment: [:])
        #expect(child.wait(until: .now + .milliseconds(100)) == nil)
        #expect(child.ending == nil)
        #expect(child.reap(within: .milliseconds(50)) == .signaled(SIGKILL))
        // Reaped once: the pid is not signalled again.
        child.kill()
        #expect(child.ending == .signaled(SIGKILL))
    }

    @Test("A child's exit wakes the pidfd: the ending is its status")
    func exitStatus() throws {
        let child = try ChildProcess.spawn("/bin/sh", arguments: ["sh", "-c", "exit 7"], environment: [:])
        #expect(child.wait(until: .now + .seconds(30)) == .exited(7))
        #expect(child.reapIfExited() == .exited(7))
    }
}
