import ArgumentParser
import MessagePack

/// `restored-bench msgpack`: reading one large Neovim answer as its bytes
/// arrive in socket-sized pieces, the way the Neovim client reads it
/// (``MessagePackFramer`` finds its end, then it is decoded once), against
/// decoding from the start after every piece (how the client read before:
/// each piece paid for all the bytes before it).
struct MessagePackBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "msgpack",
        abstract: "Time reading a large msgpack-rpc answer in pieces: framed once against decoded after every piece.",
        discussion: """
            Builds the answer to nvim_buf_get_lines for a buffer of --lines lines of 80 characters, cuts it \
            into --piece-byte pieces (what one read of the socket returns), and reads it --rounds times each \
            way; prints the medians and their ratio (each way against framing).
            """
    )

    @Option(help: "Lines of the buffer in the answer.")
    var lines = 20_000
    @Option(name: .customLong("piece-bytes"), help: "Bytes each read returns.")
    var pieceBytes = 65_536
    @Option(help: "Rounds; the median is reported.")
    var rounds = 15

    func run() throws {
        let line = String(repeating: "x", count: 79) + ";"
        let answer = MessagePackWriter.encode([1, 7, .nil, .array(Array(repeating: .string(line), count: lines))])
        let pieces = stride(from: 0, to: answer.count, by: pieceBytes).map { min($0 + pieceBytes, answer.count) }
        let clock = ContinuousClock()
        func median(_ read: () throws -> MessagePackValue) rethrows -> Duration {
            var times: [Duration] = []
            for _ in 0 ..< rounds {
                var value: MessagePackValue = .nil
                times.append(try clock.measure { value = try read() })
                guard value.arrayValue?.count == 4 else { break }
            }
            return times.sorted()[times.count / 2]
        }
        let framed = try median {
            var framer = MessagePackFramer()
            for end in pieces {
                if let length = try framer.endOfFirstValue(in: answer[..<end], limit: 64 << 20) {
                    var reader = MessagePackReader(Array(answer[..<length]))
                    return try reader.read()
                }
            }
            throw BenchmarkFailure("the answer never ended")
        }
        let reparsed = try median {
            for end in pieces {
                var reader = MessagePackReader(Array(answer[..<end]))
                do throws(MessagePackError) {
                    return try reader.read()
                } catch .incomplete {
                    continue
                }
            }
            throw BenchmarkFailure("the answer never ended")
        }
        print("answer: \(answer.count) bytes in \(pieces.count) pieces of \(pieceBytes)")
        print("framed, decoded once:         \(framed)")
        print("decoded after every piece:    \(reparsed)")
        print(String(format: "ratio (every piece / framed): %.1f", reparsed / framed))
    }
}
