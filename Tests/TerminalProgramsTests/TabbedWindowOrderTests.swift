import Testing
import TerminalPrograms

/// Which run of a terminal's tab list is which window (GNOME Terminal's
/// search provider lists every tab, window by window, naming no window).
struct TabbedWindowOrderTests {
    /// Two windows of two tabs each, the second tab active in both: the list's runs are told apart only by titles.
    let pair = [
        TabbedWindowOrder.Window(tabCount: 2, activeTab: 1, title: "/tab 2"),
        TabbedWindowOrder.Window(tabCount: 2, activeTab: 1, title: "/tab 4"),
    ]

    @Test("The order the window manager suggests is taken when each window's title is its active tab's")
    func suggestedOrderFits() {
        let order = TabbedWindowOrder(windows: pair, tabTitles: ["/tab 3", "/tab 4", "/tab 1", "/tab 2"])
        #expect(order.order(suggested: [1, 0]) == [1, 0])
    }

    @Test("A suggested order that would swap two windows of as many tabs is refused for the one order whose titles agree")
    func swappedOrderIsMended() {
        let order = TabbedWindowOrder(windows: pair, tabTitles: ["/tab 1", "/tab 2", "/tab 3", "/tab 4"])
        #expect(!order.fits([1, 0]))
        #expect(order.order(suggested: [1, 0]) == [0, 1])
    }

    @Test("Windows whose titles repeat keep the suggested order; when it does not fit and several do, nothing is told")
    func repeatedTitles() {
        let same = [
            TabbedWindowOrder.Window(tabCount: 1, activeTab: 0, title: "~"),
            TabbedWindowOrder.Window(tabCount: 1, activeTab: 0, title: "~"),
            TabbedWindowOrder.Window(tabCount: 2, activeTab: 0, title: "~"),
        ]
        let order = TabbedWindowOrder(windows: same, tabTitles: ["~", "~", "~", "~"])
        #expect(order.order(suggested: [2, 0, 1]) == [2, 0, 1])
        // Here the two-tab window's active tab cannot be "/srv": [0, 2, 1]
        // and [1, 2, 0] fit, the suggested [0, 1, 2] not.
        let told = TabbedWindowOrder(windows: same, tabTitles: ["~", "~", "/srv", "~"])
        #expect(told.order(suggested: [0, 1, 2]) == nil)
    }

    @Test("No order is told when none fits: the counts do not add up, a title is nowhere, an active tab past its window's tabs")
    func nothingFits() {
        #expect(TabbedWindowOrder(windows: pair, tabTitles: ["/tab 1", "/tab 2", "/tab 3"]).order(suggested: [0, 1]) == nil)
        #expect(TabbedWindowOrder(windows: pair, tabTitles: ["/tab 1", "/tab 2", "/tab 3", "/tab 5"]).order(suggested: [0, 1]) == nil)
        let past = [TabbedWindowOrder.Window(tabCount: 1, activeTab: 1, title: nil)]
        #expect(TabbedWindowOrder(windows: past, tabTitles: [nil]).order(suggested: [0]) == nil)
    }

    @Test("A tab without a title (the window shows a translated \"Terminal\") and a window without one match any title")
    func untitled() {
        let windows = [
            TabbedWindowOrder.Window(tabCount: 1, activeTab: 0, title: "Terminal"),
            TabbedWindowOrder.Window(tabCount: 2, activeTab: 1, title: nil),
            TabbedWindowOrder.Window(tabCount: 1, activeTab: 0, title: "/b"),
        ]
        let order = TabbedWindowOrder(windows: windows, tabTitles: ["/b", "/x", "/y", ""])
        #expect(order.order(suggested: [0, 1, 2]) == [2, 1, 0])
    }

    @Test("Many windows of one tab each, all titled alike but one, end the search early: the suggested order that fits is taken, one that does not is refused")
    func manyWindows() {
        let windows = (0 ..< 12).map { TabbedWindowOrder.Window(tabCount: 1, activeTab: 0, title: $0 == 11 ? "/other" : "~") }
        let titles: [String?] = Array(repeating: "~", count: 11) + ["/other"]
        let order = TabbedWindowOrder(windows: windows, tabTitles: titles)
        #expect(order.order(suggested: Array(0 ..< 12)) == Array(0 ..< 12))
        #expect(order.order(suggested: Array((0 ..< 12).reversed())) == nil)
    }
}
