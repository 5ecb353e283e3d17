import Foundation
import RestoredArchive
import Testing

@Suite("App ids")
struct AppIDTests {
    @Test("valid app ids are accepted", arguments: [
        "org.example.Notes", "org.gnome.TextEditor", "com.example_1.App-2", "a.b", "_x.-y",
        String(repeating: "a", count: 127) + "." + String(repeating: "b", count: 127),
    ])
    func accepts(_ string: String) throws {
        let appID = try AppID(string)
        #expect(appID.rawValue == string)
        #expect(appID.description == string)
    }

    @Test("invalid app ids are refused before any file is touched", arguments: [
        "", "..", "/", "a/b", "org", ".org.x", "org..x", "org.x.", "org.1x", "org.exämple.Notes",
        "org.example.Notes/../x", "org.example.Notes\0", "org. example", "../../etc/passwd",
        String(repeating: "a", count: 128) + "." + String(repeating: "b", count: 127),
    ])
    func refuses(_ string: String) {
        #expect(throws: AppIDError.self) { try AppID(string) }
    }

    @Test("a 256-byte id is refused, a 255-byte one accepted")
    func length() throws {
        let id255 = "org." + String(repeating: "x", count: 251)
        #expect(id255.utf8.count == 255)
        _ = try AppID(id255)
        let error = #expect(throws: AppIDError.self) { try AppID(id255 + "x") }
        #expect(error?.reason == .tooLong(256))
    }

    @Test("each refusal names the rule in one line")
    func messages() {
        let cases: [(String, AppIDError.Reason, String)] = [
            ("foo", .tooFewElements, "at least two elements"),
            ("", .empty, "cannot be empty"),
            ("org..x", .emptyElement, "two dots"),
            ("org.1x", .elementStartsWithDigit("1x"), "starts with a digit"),
            ("a/b", .invalidCharacter("/"), "is not allowed"),
            ("org.exämple.Notes", .notASCII, "ASCII"),
        ]
        for (string, reason, phrase) in cases {
            let error = #expect(throws: AppIDError.self) { try AppID(string) }
            #expect(error?.reason == reason)
            let text = error?.description ?? ""
            #expect(text.hasPrefix("invalid app id \"\(string)\": "), "\(text)")
            #expect(text.contains(phrase), "\(text)")
            #expect(!text.contains("\n"))
        }
        #expect(
            AppIDError(string: "foo", reason: .tooFewElements).description
                == "invalid app id \"foo\": an app id has at least two elements separated by dots, like org.example.Notes"
        )
    }

    @Test("app ids order byte-wise and round-trip through Codable")
    func orderAndCodable() throws {
        let ids = try ["org.b.X", "com.a.Y", "org.a.Z"].map { try AppID($0) }
        #expect(ids.sorted().map(\.rawValue) == ["com.a.Y", "org.a.Z", "org.b.X"])
        let json = try JSONEncoder().encode(ids)
        #expect(String(decoding: json, as: UTF8.self) == #"["org.b.X","com.a.Y","org.a.Z"]"#)
        #expect(try JSONDecoder().decode([AppID].self, from: json) == ids)
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([AppID].self, from: Data(#"["../etc"]"#.utf8))
        }
    }
}
