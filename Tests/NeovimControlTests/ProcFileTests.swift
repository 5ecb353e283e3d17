import Foundation
import ProcFiles
import RestoredTestSupport
import Testing

/// `/proc` files read to their end, however long they grow.
@Suite struct ProcFileTests {
    @Test("A /proc/net/unix far past one page is read whole: every socket this test opens is in it")
    func longFile() throws {
        var descriptors: [Int32] = []
        defer { descriptors.forEach { close($0) } }
        for _ in 0 ..< 300 {
            var pair: [Int32] = [-1, -1]
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
            descriptors += pair
        }
        let inodes = try descriptors.map { descriptor -> String in
            let target = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
            return String(target.dropFirst("socket:[".count).dropLast())
        }
        let table = try #require(ProcFile.text(atPath: "/proc/net/unix"))
        #expect(table.utf8.count > 600 * 50)
        let listed = Set(table.split(separator: "\n").compactMap { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst(6).first.map(String.init) })
        #expect(inodes.allSatisfy(listed.contains))
        #expect(ProcFile.contents(atPath: "/proc/no-such-file") == nil)
    }
}

/// The costs of a process the benchmarks read, from a /proc tree written by
/// the test (its numbers known) and from this process.
@Suite struct ProcAccountingTests {
    @Test("key: N lines, utime + stime, a zombie's state, and each thread's switches, read from their files")
    func fakeProc() throws {
        let directory = try TemporaryTestDirectory()
        let root = directory.path
        try FileManager.default.createDirectory(atPath: root + "/42/task/43", withIntermediateDirectories: true)
        try "Name:\tx\nVmRSS:\t   1234 kB\nVmRSSX:\t9\n".write(toFile: root + "/42/status", atomically: false, encoding: .utf8)
        try "rchar: 1\nwrite_bytes: 4096\n".write(toFile: root + "/42/io", atomically: false, encoding: .utf8)
        // comm with a ") " inside, as a program may name itself.
        try "42 (a) b) Z 1 42 42 0 -1 0 0 0 0 0 70 30 0 0\n".write(toFile: root + "/42/stat", atomically: false, encoding: .utf8)
        try "voluntary_ctxt_switches:\t5\nnonvoluntary_ctxt_switches:\t2\n".write(toFile: root + "/42/task/43/status", atomically: false, encoding: .utf8)
        try "do_epoll_wait".write(toFile: root + "/42/task/43/wchan", atomically: false, encoding: .utf8)
        #expect(ProcAccounting.number("VmRSS", inFile: "status", of: 42, proc: root) == 1234)
        #expect(ProcAccounting.number("write_bytes", inFile: "io", of: 42, proc: root) == 4096)
        #expect(ProcAccounting.number("VmSwap", inFile: "status", of: 42, proc: root) == nil)
        #expect(ProcAccounting.cpuTicks(of: 42, proc: root) == 100)
        #expect(ProcAccounting.isZombie(42, proc: root))
        #expect(ProcAccounting.contextSwitches(of: 42, proc: root) == ["43": .init(count: 7, waitsInEpoll: true)])
        #expect(ProcAccounting.cpuTicks(of: 7, proc: root) == nil)
    }

    @Test("This process: its memory, its threads, and not a zombie")
    func ownProcess() throws {
        let pid = getpid()
        #expect((ProcAccounting.number("VmRSS", inFile: "status", of: pid) ?? 0) > 0)
        #expect(!ProcAccounting.isZombie(pid))
        let threads = try #require(ProcAccounting.contextSwitches(of: pid))
        #expect(threads["\(pid)"] != nil)
    }
}
