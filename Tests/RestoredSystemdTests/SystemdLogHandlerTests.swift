// SystemdLogHandler's stderr lines, through an injected file descriptor.

import Foundation
import Logging
import RestoredSystemd
import Testing

@Suite("SystemdLogHandler, standard error format")
struct SystemdLogHandlerTests {
    /// Runs `body` with a logger writing every level to a captured descriptor, then returns the lines.
    func capture(_ body: (inout Logger) -> Void) throws -> [String] {
        let output = try CapturedOutput()
        defer { output.close() }
        var logger = Logger(
            label: "restored.test",
            factory: SystemdLogHandler.factory(destination: .fileDescriptor(output.descriptor), logLevel: .trace)
        )
        body(&logger)
        return try output.lines()
    }

    @Test("each level gets its syslog priority prefix")
    func priorities() throws {
        let lines = try capture { logger in
            logger.trace("t")
            logger.debug("d")
            logger.info("i")
            logger.notice("n")
            logger.warning("w")
            logger.error("e")
            logger.critical("c")
        }
        #expect(lines == ["<7>t\n", "<7>d\n", "<6>i\n", "<5>n\n", "<4>w\n", "<3>e\n", "<2>c\n"])
    }

    @Test("metadata as key=value pairs sorted by key, message metadata winning")
    func metadata() throws {
        let lines = try capture { logger in
            logger[metadataKey: "session"] = "3"
            logger[metadataKey: "app"] = "org.example.Old"
            logger.info(
                "Saved",
                metadata: ["app": "org.example.Notes", "bytes": .stringConvertible(1024), "generation": "7"]
            )
        }
        #expect(lines == ["<6>Saved app=org.example.Notes bytes=1024 generation=7 session=3\n"])
    }

    @Test("values with spaces, quotes or = are quoted; empty values too")
    func quoting() throws {
        let lines = try capture { logger in
            logger.warning(
                "Refused plugin",
                metadata: ["reason": "wrong ABI version 2", "quote": "say \"hi\"", "empty": "", "eq": "a=b"]
            )
        }
        #expect(lines == [#"<4>Refused plugin empty="" eq="a=b" quote="say \"hi\"" reason="wrong ABI version 2""# + "\n"])
    }

    @Test("line breaks inside messages and values stay on one line, escaped")
    func lineBreaks() throws {
        let lines = try capture { logger in
            logger.error("first\nsecond\r\nthird", metadata: ["detail": "a\nb"])
            logger.info("next")
        }
        #expect(lines == [#"<3>first\nsecond\r\nthird detail=a\nb"# + "\n", "<6>next\n"])
    }

    @Test("the logger's level filters; the handler's metadata is per logger value")
    func levelAndValueSemantics() throws {
        let lines = try capture { logger in
            logger.logLevel = .notice
            logger.info("hidden")
            var other = logger
            other[metadataKey: "only"] = "other"
            logger.notice("shown")
            other.notice("shown too")
        }
        #expect(lines == ["<5>shown\n", "<5>shown too only=other\n"])
    }

    @Test("an error passed to the logger is rendered as error=")
    func errorMetadata() throws {
        struct Failure: Error, CustomStringConvertible { var description: String { "disk full" } }
        let output = try CapturedOutput()
        defer { output.close() }
        let handler = SystemdLogHandler(label: "t", destination: .fileDescriptor(output.descriptor))
        handler.log(
            event: LogEvent(
                level: .error, message: "Save failed", error: Failure(), metadata: ["app": "a"], source: nil,
                file: #fileID, function: #function, line: #line
            )
        )
        #expect(try output.lines() == [#"<3>Save failed app=a error="disk full""# + "\n"])
    }

    @Test("metadata providers are merged")
    func metadataProvider() throws {
        let output = try CapturedOutput()
        defer { output.close() }
        let logger = Logger(label: "t") { label in
            SystemdLogHandler(
                label: label,
                destination: .fileDescriptor(output.descriptor),
                metadata: ["fixed": "1"],
                metadataProvider: Logger.MetadataProvider { ["trigger": "suspend"] }
            )
        }
        logger.info("Saving")
        #expect(try output.lines() == ["<6>Saving fixed=1 trigger=suspend\n"])
    }

    @Test("lines written from many threads never interleave")
    func concurrentWrites() async throws {
        let output = try CapturedOutput()
        defer { output.close() }
        let factory = SystemdLogHandler.factory(destination: .fileDescriptor(output.descriptor))
        let writers = 8
        let linesPerWriter = 250
        let padding = String(repeating: "x", count: 300)
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    let logger = Logger(label: "writer", factory: factory)
                    for index in 0..<linesPerWriter {
                        logger.info("\(padding)", metadata: ["writer": "\(writer)", "index": "\(index)"])
                    }
                }
            }
        }
        let lines = try output.lines()
        #expect(lines.count == writers * linesPerWriter)
        let malformed = lines.filter { line in
            !(line.hasPrefix("<6>\(padding) index=") && line.contains(" writer=") && line.hasSuffix("\n"))
        }
        #expect(malformed.isEmpty)
        #expect(Set(lines).count == writers * linesPerWriter)
    }

    @Test("Destination.automatic is standard error without a matching JOURNAL_STREAM")
    func automaticDestination() {
        #expect(SystemdLogHandler.Destination.automatic(environment: [:]) == .standardError)
        #expect(SystemdLogHandler.Destination.automatic(environment: ["JOURNAL_STREAM": "0:0"]) == .standardError)
    }
}
