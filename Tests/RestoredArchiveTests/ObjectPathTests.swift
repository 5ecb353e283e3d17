import RestoredArchive
import RestoredState
import Testing

@Suite("Object paths")
struct ObjectPathTests {
    @Test("description joins components by / and shows positions in brackets")
    func description() {
        let path = ObjectPath(identifiers: "MainWindow", "Split").appending("Detail", position: 2)
        #expect(path.description == "MainWindow/Split/Detail[2]")
        #expect(path.depth == 3)
        #expect(path.parent == ObjectPath(identifiers: "MainWindow", "Split"))
        #expect(ObjectPath(identifiers: "Root").parent == nil)
        #expect(ObjectPath().parent == nil)
    }

    @Test("a path sorts before its descendants, parents before children")
    func order() {
        let root = ObjectPath(identifiers: "A")
        let child = root.appending(.init(identifier: "B"))
        let positioned0 = root.appending(.init(identifier: "B", position: 0))
        let positioned1 = root.appending(.init(identifier: "B", position: 1))
        #expect([positioned1, child, root, positioned0].sorted() == [root, child, positioned0, positioned1])
    }
}
