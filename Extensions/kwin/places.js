// restored's window places for KWin (Plasma 5.27, and Plasma 6's API),
// loaded by restored's session plugin over D-Bus
// (org.kde.KWin /Scripting loadScript) while it reads or places windows.
//
// A KWin script serves no D-Bus calls; it calls restored instead
// (callDBus), on the name the session plugin owns while the script runs,
// org.restored1.KWinPlaces at /org/restored1/KWinPlaces:
// - Report(s windows): every normal window, as JSON, once when it starts;
// - Claim(s window) -> s place: for each window that appears after, its
//   process and id, as JSON; the answer is the place restored saved for it
//   (JSON), or an empty object;
// - Applied(s outcome): the place taken, as JSON: the frame and states the
//   window has once it took them (on Wayland a frame lands after the
//   client's next commit, so the report waits for it).
// Nothing restored sends is evaluated: places arrive as JSON, read with
// JSON.parse, and are only numbers and flags given to KWin's properties.
// The same file serves both APIs: Plasma 6 lists windows with
// windowList()/windowAdded and puts a window on desktops by object; 5.27
// with clientList()/clientAdded and by number.

const service = 'org.restored1.KWinPlaces';
const path = '/org/restored1/KWinPlaces';
const iface = 'org.restored1.KWinPlaces';
const plasma6 = typeof workspace.windowList === 'function';

function windowsNow() {
    return plasma6 ? workspace.windowList() : workspace.clientList();
}

function desktopIndexOf(window) {
    if (plasma6) {
        if (window.onAllDesktops || window.desktops.length === 0)
            return -1;
        return workspace.desktops.indexOf(window.desktops[0]);
    }
    return window.onAllDesktops ? -1 : window.desktop - 1;
}

// The output's name (Plasma 6); 5.27 gives scripts screen numbers only.
function outputNameOf(window) {
    return plasma6 && window.output ? String(window.output.name) : '';
}

function describe(window) {
    const frame = window.frameGeometry;
    return {
        id: String(window.internalId),
        pid: window.pid,
        resourceClass: String(window.resourceClass),
        caption: String(window.caption),
        desktop: desktopIndexOf(window),
        output: outputNameOf(window),
        // Plasma 6 gives a frame in fractions of a pixel.
        x: Math.round(frame.x), y: Math.round(frame.y), width: Math.round(frame.width), height: Math.round(frame.height),
        maximized: isMaximized(window),
        fullscreen: window.fullScreen,
        minimized: window.minimized,
    };
}

// Maximized both ways: Plasma 6 says so in maximizeMode (3: both); a KWin
// that does not is taken as not maximized.
function isMaximized(window) {
    return typeof window.maximizeMode === 'number' && window.maximizeMode === 3;
}

// The area of each screen there is now, the first one first.
function screenAreas() {
    if (plasma6)
        return workspace.screens.map(output => workspace.clientArea(KWin.FullScreenArea, output, workspace.currentDesktop));
    const areas = [];
    for (let index = 0; index < workspace.numScreens; index++)
        areas.push(workspace.clientArea(KWin.FullScreenArea, index, workspace.currentDesktop));
    return areas;
}

function contains(area, x, y) {
    return x >= area.x && x < area.x + area.width && y >= area.y && y < area.y + area.height;
}

// Moves and shrinks `frame` inside `area`.
function fitting(frame, area) {
    const width = Math.min(frame.width, area.width);
    const height = Math.min(frame.height, area.height);
    return {
        x: Math.min(Math.max(frame.x, area.x), area.x + area.width - width),
        y: Math.min(Math.max(frame.y, area.y), area.y + area.height - height),
        width, height,
    };
}

function toDesktop(window, index) {
    // More than 64 desktops would be made for nobody.
    if (!Number.isInteger(index) || index < 0 || index >= 64)
        return;
    // Made up to the one asked for, and no further than KWin lets.
    if (plasma6) {
        while (workspace.desktops.length <= index) {
            const count = workspace.desktops.length;
            workspace.createDesktop(count, '');
            if (workspace.desktops.length === count)
                return;
        }
        window.desktops = [workspace.desktops[index]];
    } else {
        if (workspace.desktops <= index)
            workspace.desktops = index + 1;
        if (workspace.desktops <= index)
            return;
        window.desktop = index + 1;
    }
}

// Applies `place`'s frame and states to `window`, where it is shown;
// returns the frame asked for (none when the place has none). Its desktop
// and minimized state come once these took (hide), since a Wayland client
// that is not shown draws nothing, and its new frame would wait for it.
function apply(window, place) {
    let frame = { x: Number(place.x), y: Number(place.y), width: Number(place.width), height: Number(place.height) };
    // A frame on no screen now (its monitor is gone): the first screen,
    // the frame moved and shrunk inside it.
    const areas = screenAreas();
    const centerX = frame.x + frame.width / 2;
    const centerY = frame.y + frame.height / 2;
    if (areas.length > 0 && !areas.some(area => contains(area, centerX, centerY)))
        frame = fitting(frame, areas[0]);
    const framed = frame.width > 0 && frame.height > 0;
    if (framed)
        window.frameGeometry = frame;
    if (place.maximized === true)
        window.setMaximize(true, true);
    if (place.fullscreen === true)
        window.fullScreen = true;
    return framed ? frame : null;
}

// Puts `window` out of sight where `place` says: on its desktop, minimized.
function hide(window, place) {
    toDesktop(window, typeof place.desktop === 'number' ? place.desktop : -1);
    if (place.minimized === true)
        window.minimized = true;
}

function sameFrame(one, other) {
    return Math.round(one.x) === Math.round(other.x) && Math.round(one.y) === Math.round(other.y)
        && Math.round(one.width) === Math.round(other.width) && Math.round(one.height) === Math.round(other.height);
}

// Whether `window` shows what `place` asked for: full screen, maximized
// (where KWin says), or its frame.
function tookPlace(window, place, frame) {
    if (place.fullscreen === true)
        return window.fullScreen;
    if (place.maximized === true && typeof window.maximizeMode === 'number')
        return isMaximized(window);
    return frame === null || sameFrame(window.frameGeometry, frame);
}

// Reports the place `window` took once it took it, and only then puts it
// on its desktop (hide): at once where KWin set it at once (X11), after the
// frame changes that follow otherwise (a Wayland client's next commit). A
// window that keeps a size of its own is reported as it is after a few
// changes; one that never changes again is never reported (nor moved to
// its desktop), and the session plugin's deadline ends its wait.
function reportWhenTaken(window, place, frame) {
    const report = () => {
        hide(window, place);
        const now = window.frameGeometry;
        callDBus(service, path, iface, 'Applied', JSON.stringify({
            rule: place.rule, id: String(window.internalId),
            x: Math.round(now.x), y: Math.round(now.y), width: Math.round(now.width), height: Math.round(now.height),
            maximized: isMaximized(window), fullscreen: window.fullScreen, minimized: window.minimized,
        }));
    };
    if (tookPlace(window, place, frame)) {
        report();
        return;
    }
    // KWin may say a window is maximized after its frame changed: its
    // states' signals are followed too, where it has them.
    const signals = [window.frameGeometryChanged, window.maximizedChanged, window.fullScreenChanged]
        .filter(signal => signal !== undefined && typeof signal.connect === 'function');
    let changes = 0;
    const changed = () => {
        changes += 1;
        if (!tookPlace(window, place, frame) && changes < 4)
            return;
        for (const signal of signals)
            signal.disconnect(changed);
        report();
    };
    for (const signal of signals)
        signal.connect(changed);
}

function claim(window) {
    if (!window.normalWindow)
        return;
    callDBus(service, path, iface, 'Claim', JSON.stringify({ id: String(window.internalId), pid: window.pid }), reply => {
        let place = {};
        try {
            place = JSON.parse(String(reply));
        } catch (error) {
            return;
        }
        if (typeof place.rule !== 'string')
            return;
        reportWhenTaken(window, place, apply(window, place));
    });
}

callDBus(service, path, iface, 'Report', JSON.stringify(windowsNow().filter(window => window.normalWindow).map(describe)));
if (plasma6)
    workspace.windowAdded.connect(claim);
else
    workspace.clientAdded.connect(claim);
