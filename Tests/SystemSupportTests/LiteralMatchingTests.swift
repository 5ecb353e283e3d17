import SystemSupport
import Testing

/// The literal string matches the plugins use in place of Foundation's.
@Suite struct LiteralMatchingTests {
    @Test("Every match is replaced, left to right and without overlaps, a mark after it or not")
    func replacing() {
        #expect("a/b/c".replacingEvery("/", with: "%2F") == "a%2Fb%2Fc")
        #expect("%%".replacingEvery("%", with: "%25") == "%25%25")
        #expect("aaaa".replacingEvery("aa", with: "b") == "bb")
        #expect("aaa".replacingEvery("aa", with: "b") == "ba")
        #expect("none".replacingEvery("/", with: "-") == "none")
        #expect("".replacingEvery("/", with: "-") == "")
        #expect("abc".replacingEvery("", with: "-") == "abc")
        // A slash that a combining mark follows is one character with it,
        // and the standard library's replacing(_:with:) leaves it: R3's
        // identifiers must hold no slash at all.
        let marked = "a/\u{301}b"
        #expect(marked.replacing("/", with: "%2F") == marked)
        #expect(!marked.replacingEvery("/", with: "%2F").unicodeScalars.contains("/"))
        #expect("é/ü".replacingEvery("/", with: "-") == "é-ü")
        #expect(Substring("x/y").replacingEvery("/", with: "%2F") == "x%2Fy")
    }

    @Test("The text before the first match, empty when it starts the text, nil without one")
    func prefix() {
        #expect("https://example.org/a://b".prefix(beforeFirst: "://") == "https")
        #expect("://x".prefix(beforeFirst: "://") == "")
        #expect("/home/me/file".prefix(beforeFirst: "://") == nil)
        #expect("ab".prefix(beforeFirst: "abc") == nil)
        #expect("ab".prefix(beforeFirst: "") == "")
        #expect("fïle:\u{301}//x".prefix(beforeFirst: "://") == nil)
        #expect("smb:/\u{301}/x".prefix(beforeFirst: ":/") == "smb")
    }
}
