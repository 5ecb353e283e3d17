/// Which run of a terminal's tab list is which of its windows, for a
/// terminal that lists all its tabs in one list, window by window, in an
/// order of windows it does not name (GNOME Terminal's search provider:
/// its GtkApplication window list, the window used last first).
///
/// Each window is known by how many tabs it holds, which one is active and
/// its title as the window manager shows it (the active tab's title). An
/// order of windows *fits* the list when the counts add up and, in each
/// window's run, the active tab's title is the window's title. The order
/// the window manager suggests (the order the user last used the windows
/// in) is taken when it fits; otherwise the one order that fits, when
/// exactly one does. When none fits, or several do and the suggested one
/// is not among them, nothing is told: tabs saved in the wrong windows
/// would come back in each other's places, silently.
///
/// A title not told (nil or empty: GNOME Terminal shows a translated
/// "Terminal" for a tab without a title) matches any title.
public struct TabbedWindowOrder: Sendable {
    /// One window: its tabs, its active tab's index, its title.
    public struct Window: Sendable, Equatable {
        /// How many tabs it holds (at least one).
        public var tabCount: Int
        /// Its active tab's index among its tabs.
        public var activeTab: Int
        /// Its title as the window manager shows it (nil: not told).
        public var title: String?

        /// A window of `tabCount` tabs whose tab `activeTab` is active, titled `title`.
        public init(tabCount: Int, activeTab: Int, title: String?) {
            self.tabCount = tabCount
            self.activeTab = activeTab
            self.title = title
        }
    }

    /// How many orders the search looks at before it gives up (the
    /// windows of a terminal are few; titles that all repeat end it early).
    static let searchBudget = 100_000

    /// The windows, in the caller's order.
    public let windows: [Window]
    /// Each listed tab's title, in the list's order (nil: not told).
    public let tabTitles: [String?]

    /// The order of `windows` in a list of tabs titled `tabTitles`.
    public init(windows: [Window], tabTitles: [String?]) {
        self.windows = windows
        self.tabTitles = tabTitles
    }

    /// The indices of ``windows`` in the list's order: `suggested` when it
    /// fits, else the one order that fits; nil when no order is told.
    public func order(suggested: [Int]) -> [Int]? {
        guard windows.allSatisfy({ $0.tabCount > 0 && $0.activeTab >= 0 && $0.activeTab < $0.tabCount }),
              windows.reduce(0, { $0 + $1.tabCount }) == tabTitles.count
        else { return nil }
        if fits(suggested) { return suggested }
        var found: [[Int]] = []
        var budget = Self.searchBudget
        var order: [Int] = []
        var used = Array(repeating: false, count: windows.count)
        search(at: 0, order: &order, used: &used, found: &found, budget: &budget)
        return found.count == 1 && budget > 0 ? found[0] : nil
    }

    /// Whether `order` (each window once) fits the list.
    public func fits(_ order: [Int]) -> Bool {
        guard order.count == windows.count, Set(order) == Set(windows.indices) else { return false }
        var start = 0
        for index in order {
            guard start + windows[index].tabCount <= tabTitles.count, matches(index, at: start) else { return false }
            start += windows[index].tabCount
        }
        return start == tabTitles.count
    }

    /// Whether window `index`'s title is that of its active tab when its run starts at `start`.
    private func matches(_ index: Int, at start: Int) -> Bool {
        guard let title = windows[index].title, !title.isEmpty,
              let tab = tabTitles[start + windows[index].activeTab], !tab.isEmpty
        else { return true }
        return title == tab
    }

    /// Extends `order` (its runs end at `start`) by each window left that
    /// fits there; stops once two orders are found or the budget is spent.
    private func search(at start: Int, order: inout [Int], used: inout [Bool], found: inout [[Int]], budget: inout Int) {
        if order.count == windows.count {
            found.append(order)
            return
        }
        for index in windows.indices where !used[index] {
            guard found.count < 2, budget > 0 else { return }
            budget -= 1
            guard start + windows[index].tabCount <= tabTitles.count, matches(index, at: start) else { continue }
            used[index] = true
            order.append(index)
            search(at: start + windows[index].tabCount, order: &order, used: &used, found: &found, budget: &budget)
            order.removeLast()
            used[index] = false
        }
    }
}
