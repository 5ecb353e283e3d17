extension X11Connection {
    /// The windows the window manager manages (`_NET_CLIENT_LIST`), each
    /// with its process (`_NET_WM_PID`), workspace (`_NET_WM_DESKTOP`) and
    /// frame position (its position less `_NET_FRAME_EXTENTS`) and size.
    public func managedWindows() throws(X11Error) -> [ManagedWindow] {
        try property32("_NET_CLIENT_LIST", of: root).map { (id) throws(X11Error) -> ManagedWindow in
            let pid = try property32("_NET_WM_PID", of: id).first.flatMap { Int32(exactly: $0) }
            let desktop = try property32("_NET_WM_DESKTOP", of: id).first.flatMap { $0 == 0xFFFF_FFFF ? nil : Int($0) }
            let extents = try property32("_NET_FRAME_EXTENTS", of: id)
            let (x, y) = try position(of: id)
            let (width, height) = try size(of: id)
            let left = extents.count == 4 ? Int(extents[0]) : 0, top = extents.count == 4 ? Int(extents[2]) : 0
            return ManagedWindow(id: id, pid: pid, placement: WindowPlacement(desktop: desktop, x: x - left, y: y - top, width: width, height: height))
        }
    }

    /// Asks the window manager to put `window` on `placement`'s workspace
    /// (`_NET_WM_DESKTOP`) and frame position and size
    /// (`_NET_MOVERESIZE_WINDOW`, north-west gravity, as a pager asks).
    public func place(_ window: UInt32, at placement: WindowPlacement) throws(X11Error) {
        let fromPager: UInt32 = 2
        // A desktop no 32-bit value holds (a hostile archive's) is not asked for.
        if let desktop = placement.desktop.flatMap(UInt32.init(exactly:)) {
            try sendClientMessage("_NET_WM_DESKTOP", about: window, data: [desktop, fromPager])
        }
        // Gravity 1 (north-west), x, y, width and height given (bits 8-11), from a pager (bits 12-15).
        let flags: UInt32 = 1 | 0xF00 | fromPager << 12
        try sendClientMessage("_NET_MOVERESIZE_WINDOW", about: window, data: [
            flags, UInt32(bitPattern: Int32(clamping: placement.x)), UInt32(bitPattern: Int32(clamping: placement.y)),
            UInt32(clamping: max(placement.width, 1)), UInt32(clamping: max(placement.height, 1)),
        ])
    }
}
