import Foundation
import ProcFiles
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
