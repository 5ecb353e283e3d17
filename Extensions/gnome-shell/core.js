// restored's window places for GNOME Shell: the core both entries share
// (legacy/extension.js for GNOME 43 and 44, modules/extension.js for 45
// and later). It names no import: each entry hands it the libraries. It
// declares one function and nothing else at its top level, so that the
// legacy importer exports it as it is, and scripts/install-window-places
// appends an `export` of it for the ES module entry.
//
// It exports org.restored1.WindowPlaces at /org/restored1/WindowPlaces on
// the shell's own session bus connection:
// - Windows: every normal window with its process, app id, class, title,
//   workspace, monitor (connector), frame and states, its GTK window's
//   object path and its place among the windows the user last used (made
//   or focused);
// - Monitors: each monitor's connector, whether it is primary, its frame;
// - SetRules: the places restored hands over before it relaunches apps; a
//   rule is applied as a matching new window is created (before it is first
//   shown), and forgotten after its lifetime;
// - Applied: which rules were applied, to which window.
// Only restored may call it: the owner of org.restored1 (any connection of
// its process), and the processes it started itself (its plugin hosts,
// whose parent it is). That is a check of the session, not a wall between
// the user's own programs: one that owns org.restored1 while restored does
// not run passes it. Every value arrives typed (GVariant); none is ever
// evaluated.

function createWindowPlaces(lib) {
    const { Gio, GLib, Meta, Shell, global } = lib;

    const interfaceXML = `
<node>
  <interface name="org.restored1.WindowPlaces">
    <method name="Windows">
      <arg type="aa{sv}" direction="out" name="windows"/>
    </method>
    <method name="Monitors">
      <arg type="a(sbiiii)" direction="out" name="monitors"/>
    </method>
    <method name="SetRules">
      <arg type="aa{sv}" direction="in" name="rules"/>
      <arg type="u" direction="in" name="lifetime"/>
    </method>
    <method name="Applied">
      <arg type="a(st)" direction="out" name="applied"/>
    </method>
    <property name="Version" type="u" access="read"/>
  </interface>
</node>`;
    const objectPath = '/org/restored1/WindowPlaces';
    const deniedError = 'org.freedesktop.DBus.Error.AccessDenied';

    // What the monitor manager knows by connector name; connector names are
    // learned from Mutter's DisplayConfig (the shell's own service).
    let connectors = [];
    let rules = [];
    let applied = [];
    let rulesExpire = 0;
    // Launches seen: process id -> the launch group its windows take places of.
    let groupOfProcess = new Map();
    // Windows made while rules were set whose rule was not told yet, in the order they were made.
    let untold = [];
    let owner = null;
    let ownerProcess = 0;
    let exported = null;
    let watch = 0;
    let displayConfigWatch = 0;
    let windowCreated = 0;
    let focusChanged = 0;
    const cleanups = new Set();
    let monitorsChanged = 0;
    let cancellable = null;

    function monitorManager() {
        return global.backend.get_monitor_manager();
    }

    function connectorOf(index) {
        const manager = monitorManager();
        for (const connector of connectors) {
            if (manager.get_monitor_for_connector(connector) === index)
                return connector;
        }
        return '';
    }

    function refreshConnectors() {
        Gio.DBus.session.call('org.gnome.Mutter.DisplayConfig', '/org/gnome/Mutter/DisplayConfig',
            'org.gnome.Mutter.DisplayConfig', 'GetCurrentState', null, null, Gio.DBusCallFlags.NONE, 5000, cancellable,
            (connection, result) => {
                try {
                    const state = connection.call_finish(result).deepUnpack();
                    connectors = state[1].map(monitor => monitor[0][0]);
                } catch (error) {
                    if (!error.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                        log(`restored window places: cannot read the monitors' connectors: ${error.message}`);
                }
            });
    }

    // The normal windows, in the order they were made (a process's
    // windows are saved in that order, and reopened windows take their
    // places in it).
    function normalWindows() {
        return global.get_window_actors().map(actor => actor.meta_window)
            .filter(window => window && window.get_window_type() === Meta.WindowType.NORMAL)
            .sort((one, other) => one.get_stable_sequence() - other.get_stable_sequence());
    }

    function appIdOf(window) {
        const app = Shell.WindowTracker.get_default().get_window_app(window);
        return (app && app.get_id()) || window.get_sandboxed_app_id() || window.get_gtk_application_id() || '';
    }

    // The order the user last used the windows in, over every workspace,
    // kept here as a count by window id (the highest: the last used): a
    // window is used as it is made and each time it takes the focus. That
    // is the order GtkApplication keeps its windows in (a window put first
    // as it is added, and again as it is focused), which ties an app's own
    // list of its windows (GNOME Terminal's tabs) to the shell's windows.
    // Mutter's tab list of all workspaces is not that order: it sorts by
    // user time, which a focus without input (the next window focused as
    // one moves to another workspace) leaves as it was. Windows there
    // before the extension was enabled start in the tab list's order.
    let lastUsed = new Map();
    let uses = 0;

    function markUsed(window) {
        if (window)
            lastUsed.set(window.get_id(), ++uses);
    }

    // Each normal window's place in that order (0: the last used).
    function recencies() {
        const windows = normalWindows();
        const live = new Set(windows.map(window => window.get_id()));
        for (const id of [...lastUsed.keys()]) {
            if (!live.has(id))
                lastUsed.delete(id);
        }
        const order = new Map();
        windows.filter(window => lastUsed.has(window.get_id()))
            .sort((one, other) => lastUsed.get(other.get_id()) - lastUsed.get(one.get_id()))
            .forEach((window, index) => order.set(window, index));
        return order;
    }

    function describe(window, recency) {
        const frame = window.get_frame_rect();
        const workspace = window.get_workspace();
        const onAll = window.is_on_all_workspaces();
        return {
            'id': new GLib.Variant('t', window.get_id()),
            'pid': new GLib.Variant('i', window.get_pid()),
            'app-id': new GLib.Variant('s', appIdOf(window)),
            'wm-class': new GLib.Variant('s', window.get_wm_class() || ''),
            'title': new GLib.Variant('s', window.get_title() || ''),
            'workspace': new GLib.Variant('i', onAll || !workspace ? -1 : workspace.index()),
            'monitor': new GLib.Variant('s', connectorOf(window.get_monitor())),
            'x': new GLib.Variant('i', frame.x),
            'y': new GLib.Variant('i', frame.y),
            'width': new GLib.Variant('i', frame.width),
            'height': new GLib.Variant('i', frame.height),
            'maximized': new GLib.Variant('b', isMaximized(window)),
            'fullscreen': new GLib.Variant('b', window.is_fullscreen()),
            'minimized': new GLib.Variant('b', window.minimized),
            // The GtkApplication window's object path on its app's bus
            // connection (/org/gnome/Terminal/window/N), '' for others.
            'gtk-window-path': new GLib.Variant('s', window.get_gtk_window_object_path() || ''),
            'recency': new GLib.Variant('i', recency.has(window) ? recency.get(window) : -1),
        };
    }

    // Maximized both ways. Mutter 49 removed get_maximized() and the flags
    // of maximize(): is_maximized() and maximize() say and do both ways.
    function isMaximized(window) {
        if (typeof window.get_maximized === 'function')
            return window.get_maximized() === Meta.MaximizeFlags.BOTH;
        return window.is_maximized();
    }

    function maximize(window) {
        if (typeof window.get_maximized === 'function')
            window.maximize(Meta.MaximizeFlags.BOTH);
        else
            window.maximize();
    }

    function monitors() {
        const display = global.display;
        const primary = display.get_primary_monitor();
        const list = [];
        for (let index = 0; index < display.get_n_monitors(); index++) {
            const rect = display.get_monitor_geometry(index);
            list.push([connectorOf(index), index === primary, rect.x, rect.y, rect.width, rect.height]);
        }
        return list;
    }

    // The desktop file a process was launched from, as GIO and restored's
    // launches say it (GIO_LAUNCHED_DESKTOP_FILE in its environment).
    function launchedFile(pid) {
        if (pid <= 0)
            return null;
        try {
            const [ok, contents] = GLib.file_get_contents(`/proc/${pid}/environ`);
            if (!ok)
                return null;
            const key = 'GIO_LAUNCHED_DESKTOP_FILE=';
            let start = 0;
            for (let end = 0; end <= contents.length; end++) {
                if (end < contents.length && contents[end] !== 0)
                    continue;
                if (end - start > key.length) {
                    const entry = new TextDecoder().decode(contents.subarray(start, end));
                    if (entry.startsWith(key))
                        return entry.substring(key.length);
                }
                start = end + 1;
            }
        } catch (error) {
            // The process is gone or not the user's: no rule is its.
        }
        return null;
    }

    function parentOf(pid) {
        try {
            const [ok, contents] = GLib.file_get_contents(`/proc/${pid}/status`);
            if (!ok)
                return 0;
            const match = /^PPid:\s*(\d+)$/m.exec(new TextDecoder().decode(contents));
            return match ? Number(match[1]) : 0;
        } catch (error) {
            return 0;
        }
    }

    // The rule `window` takes: the next unapplied one of the launch group
    // its process holds, or of the first group no process holds yet of its
    // desktop file, or, for a window of a process restored did not start
    // (a single-instance app a launch handed its window to, such as GNOME
    // Terminal's server or a D-Bus activated app), of its app's desktop id.
    function ruleFor(window) {
        if (rules.length === 0)
            return null;
        if (GLib.get_monotonic_time() > rulesExpire) {
            rules = [];
            groupOfProcess.clear();
            untold = [];
            return null;
        }
        const pid = window.get_pid();
        let group = groupOfProcess.get(pid);
        if (group === undefined) {
            const file = launchedFile(pid);
            const held = new Set(groupOfProcess.values());
            const free = candidate => !held.has(candidate.group) && !candidate.window;
            let rule = file === null ? undefined : rules.find(candidate => candidate.file === file && free(candidate));
            if (!rule) {
                // The shell may not know the window's app yet when it is
                // created: its Wayland app id or GTK application id names
                // the desktop file too.
                const ids = new Set([appIdOf(window), window.get_wm_class(), window.get_gtk_application_id(), window.get_sandboxed_app_id()]
                    .filter(id => typeof id === 'string' && id !== '')
                    .map(id => id.endsWith('.desktop') ? id : `${id}.desktop`));
                rule = rules.find(candidate => candidate.desktopId !== '' && ids.has(candidate.desktopId) && free(candidate));
            }
            if (!rule)
                return null;
            group = rule.group;
            groupOfProcess.set(pid, group);
        }
        return rules.find(candidate => candidate.group === group && !candidate.window) || null;
    }

    // Moves and shrinks `frame` inside `area`.
    function fitting(frame, area) {
        const width = Math.min(frame.width, area.width);
        const height = Math.min(frame.height, area.height);
        const x = Math.min(Math.max(frame.x, area.x), area.x + area.width - width);
        const y = Math.min(Math.max(frame.y, area.y), area.y + area.height - height);
        return { x, y, width, height };
    }

    // The workspace a window of `rule` goes to, made when it does not exist yet.
    function moveToWorkspace(window, rule) {
        if (rule.workspace < 0)
            return;
        const manager = global.display.get_workspace_manager();
        // Made up to the one asked for, and no further than the shell lets.
        while (manager.get_n_workspaces() <= rule.workspace) {
            const count = manager.get_n_workspaces();
            manager.append_new_workspace(false, global.get_current_time());
            if (manager.get_n_workspaces() === count)
                return;
        }
        window.change_workspace_by_index(rule.workspace, false);
    }

    // The frame a window of `rule` takes: the saved one on the saved
    // monitor, or inside the primary monitor while that one is gone.
    function frameOf(rule) {
        const display = global.display;
        const frame = { x: rule.x, y: rule.y, width: rule.width, height: rule.height };
        if (rule.monitor && monitorManager().get_monitor_for_connector(rule.monitor) < 0)
            return fitting(frame, display.get_monitor_geometry(display.get_primary_monitor()));
        return frame;
    }

    // Keeps `cleanup` (a signal to disconnect, a source to remove) until
    // the returned function is called, which runs it once, or until
    // disable() runs it: nothing of the extension outlives it.
    function pending(cleanup) {
        const done = () => {
            if (cleanups.delete(done))
                cleanup();
        };
        cleanups.add(done);
        return done;
    }

    // Runs `work` in Mutter's work before the next paint, after it has
    // computed which windows show (and placed the new ones).
    function beforeRedraw(work) {
        const laters = global.compositor && global.compositor.get_laters ? global.compositor.get_laters() : null;
        let ran = false;
        const run = () => {
            ran = true;
            release();
            return work();
        };
        const id = laters ? laters.add(Meta.LaterType.BEFORE_REDRAW, run) : Meta.later_add(Meta.LaterType.BEFORE_REDRAW, run);
        const release = pending(() => {
            if (!ran)
                laters ? laters.remove(id) : Meta.later_remove(id);
        });
    }

    function sameFrame(window, frame) {
        const now = window.get_frame_rect();
        return now.x === frame.x && now.y === frame.y && now.width === frame.width && now.height === frame.height;
    }

    // Applies `rule` to `window`, which Mutter has just placed (and may
    // have mapped, not yet painted): a window that is shown stays unseen
    // until it has taken its frame (a Wayland client takes a new size at
    // its next commit), one second at most, so that it is never seen
    // where Mutter put it. Mutter 50 and later keep it unmapped
    // (inhibit_mapped(): nothing of it is shown, nor offered to the
    // overview or the window list); before 50 its actor is hidden. It is
    // shown again when it has its frame, after the second, when it goes,
    // and when the extension is disabled meanwhile (a screen lock on GNOME
    // releases no rule: the extension stays enabled on the lock screen).
    function applyPlaced(window, rule) {
        moveToWorkspace(window, rule);
        const actor = window.get_compositor_private();
        const frame = frameOf(rule);
        const states = () => {
            if (rule.maximized)
                maximize(window);
            if (rule.fullscreen)
                window.make_fullscreen();
            if (rule.minimized)
                window.minimize();
            applied.push([rule.id, window.get_id()]);
        };
        if (frame.width <= 0 || frame.height <= 0 || sameFrame(window, frame)) {
            states();
            return;
        }
        const inhibits = typeof window.inhibit_mapped === 'function';
        let unseen = false;
        if (inhibits) {
            window.inhibit_mapped();
            unseen = true;
        } else if (actor !== null && actor.visible) {
            actor.hide();
            unseen = true;
        }
        const signals = [];
        let timeout = 0;
        let gone = false;
        // Shown again only where it is to be seen: a window on another
        // workspace is Mutter's to show when that one is (an uninhibited
        // window is always Mutter's to show).
        const showAgain = () => {
            if (!unseen || gone)
                return;
            unseen = false;
            if (inhibits) {
                window.uninhibit_mapped();
                return;
            }
            const active = global.display.get_workspace_manager().get_active_workspace();
            if (window.located_on_workspace(active) && !window.minimized)
                actor.show();
        };
        const release = pending(() => {
            for (const id of signals)
                window.disconnect(id);
            signals.length = 0;
            if (timeout !== 0)
                GLib.source_remove(timeout);
            timeout = 0;
            showAgain();
        });
        // Its states first, then shown: never seen unmaximized on its way.
        const reveal = () => {
            try {
                states();
            } finally {
                release();
            }
        };
        signals.push(window.connect('position-changed', () => {
            if (sameFrame(window, frame))
                reveal();
        }));
        signals.push(window.connect('size-changed', () => {
            if (sameFrame(window, frame))
                reveal();
        }));
        signals.push(window.connect('unmanaged', () => {
            gone = true;
            release();
        }));
        timeout = GLib.timeout_add(GLib.PRIORITY_DEFAULT, 1000, () => {
            timeout = 0;
            reveal();
            return GLib.SOURCE_REMOVE;
        });
        window.move_resize_frame(true, frame.x, frame.y, frame.width, frame.height);
    }

    // Applies `rule` to `window` once Mutter has placed it (after its
    // first size, in the work Mutter does before the next paint: a frame
    // given earlier is overridden by that placement), before the stage is
    // painted.
    function applyWhenPlaced(window, rule) {
        atFirstSize(window, () => applyBeforeRedraw(window, rule));
    }

    // Calls `then` once `window` has a size (its first buffer), at once
    // when it already has one (an X11 window is made with its size).
    function atFirstSize(window, then) {
        if (window.get_frame_rect().width > 0) {
            then();
            return;
        }
        const sized = window.connect('size-changed', () => {
            if (window.get_frame_rect().width <= 0)
                return;
            release();
            then();
        });
        const release = pending(() => window.disconnect(sized));
    }

    function applyBeforeRedraw(window, rule) {
        beforeRedraw(() => {
            try {
                applyPlaced(window, rule);
            } catch (error) {
                log(`restored window places: rule ${rule.id} not applied: ${error.message}`);
            }
            return GLib.SOURCE_REMOVE;
        });
    }

    // The rule of `window`, made while no rule could be told its: the one
    // claimed for it already, else its launch's next place once its
    // process's launch is told (claimInOrder).
    function claimLate(window) {
        const claimed = rules.find(rule => rule.window === window.get_id());
        if (claimed) {
            untold = untold.filter(other => other !== window);
            return claimed;
        }
        return ruleFor(window) === null ? null : claimInOrder(window);
    }

    // Claims, once the launch of `window`'s process is told, the launch's
    // next places for that process's windows still untold and `window`, in
    // the order they were made, and returns the rule of `window`. Their
    // app may be told late and in any order (GNOME Terminal's server: its
    // first window named once drawn, its second as it is made), and a
    // launch's windows are saved and reopened in the order they were made.
    function claimInOrder(window) {
        const id = window.get_id();
        const pid = window.get_pid();
        const waiting = untold.filter(other => other.get_pid() === pid && other !== window)
            .concat([window])
            .sort((one, other) => one.get_stable_sequence() - other.get_stable_sequence());
        untold = untold.filter(other => other.get_pid() !== pid);
        for (const other of waiting) {
            const next = ruleFor(other);
            if (next === null)
                break;
            next.window = other.get_id();
        }
        return rules.find(rule => rule.window === id) || null;
    }

    function onWindowCreated(display, window) {
        markUsed(window);
        if (window.get_window_type() !== Meta.WindowType.NORMAL || rules.length === 0)
            return;
        let rule = ruleFor(window);
        // Windows of its process made before it, whose app was not told yet, take their places first.
        if (rule !== null && untold.some(other => other.get_pid() === window.get_pid()))
            rule = claimInOrder(window);
        if (rule === null) {
            // A window of a process restored did not start may name its
            // app only after it is created: looked at again once it has a
            // size, before it is painted.
            untold.push(window);
            // Gone, it is no longer waiting (nor asked anything again).
            const unmanaged = window.connect('unmanaged', () => {
                untold = untold.filter(other => other !== window);
                forgetUnmanaged();
            });
            const forgetUnmanaged = pending(() => window.disconnect(unmanaged));
            atFirstSize(window, () => {
                const late = claimLate(window);
                if (late !== null)
                    applyBeforeRedraw(window, late);
            });
            return;
        }
        // Claimed now. Its workspace once Mutter has sent the window its
        // first configuration (a Wayland window changed before that takes
        // Mutter 43 down), so that it is first shown there; the rest once
        // Mutter has placed it.
        rule.window = window.get_id();
        const idle = GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
            forgetIdle();
            try {
                moveToWorkspace(window, rule);
            } catch (error) {
                log(`restored window places: rule ${rule.id}: ${error.message}`);
            }
            return GLib.SOURCE_REMOVE;
        });
        let idleRan = false;
        const release = pending(() => {
            if (!idleRan)
                GLib.source_remove(idle);
        });
        const forgetIdle = () => {
            idleRan = true;
            release();
        };
        applyWhenPlaced(window, rule);
    }

    function number(fields, key, fallback) {
        const value = fields[key];
        return value === undefined ? fallback : value.deepUnpack();
    }

    // A workspace number a rule may ask for (-1: none): more than 64
    // workspaces would be made for nobody.
    function workspaceNumber(value) {
        return Number.isInteger(value) && value >= 0 && value < 64 ? value : -1;
    }

    function parseRules(list) {
        const parsed = [];
        for (const fields of list) {
            const id = number(fields, 'id', '');
            const file = number(fields, 'launched-file', '');
            const desktopId = number(fields, 'desktop-id', '');
            if (typeof id !== 'string' || typeof file !== 'string' || id === '' || file === '')
                continue;
            parsed.push({
                id, file,
                desktopId: typeof desktopId === 'string' ? desktopId : '',
                group: String(number(fields, 'launch', 0)),
                workspace: workspaceNumber(number(fields, 'workspace', -1)),
                monitor: number(fields, 'monitor', ''),
                x: number(fields, 'x', 0),
                y: number(fields, 'y', 0),
                width: number(fields, 'width', 0),
                height: number(fields, 'height', 0),
                maximized: number(fields, 'maximized', false) === true,
                fullscreen: number(fields, 'fullscreen', false) === true,
                minimized: number(fields, 'minimized', false) === true,
                window: null,
            });
        }
        return parsed;
    }

    // Calls `then(pid)` with the process of bus name `name` (0 when the
    // bus does not say).
    function processOf(name, then) {
        Gio.DBus.session.call('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
            'GetConnectionUnixProcessID', new GLib.Variant('(s)', [name]), new GLib.VariantType('(u)'),
            Gio.DBusCallFlags.NONE, 5000, cancellable, (connection, result) => {
                let pid = 0;
                try {
                    [pid] = connection.call_finish(result).deepUnpack();
                } catch (error) {
                    pid = 0;
                }
                then(pid);
            });
    }

    // Calls `then(allowed)` once it is known whether `sender` is restored
    // (the owner of org.restored1, or another connection of its process)
    // or a process it started (a plugin host, whose parent it is).
    function checkCaller(sender, then) {
        if (owner === null) {
            then(false);
            return;
        }
        if (sender === owner) {
            then(true);
            return;
        }
        const ownerNow = owner;
        processOf(sender, pid => {
            if (pid === 0 || owner !== ownerNow) {
                then(false);
                return;
            }
            const decide = ownerPid => ownerPid > 0 && (pid === ownerPid || parentOf(pid) === ownerPid);
            if (ownerProcess > 0) {
                then(decide(ownerProcess));
                return;
            }
            processOf(ownerNow, ownerPid => {
                if (owner === ownerNow)
                    ownerProcess = ownerPid;
                then(decide(ownerPid));
            });
        });
    }

    const service = {
        WindowsAsync(parameters, invocation) {
            checkCaller(invocation.get_sender(), allowed => {
                if (!allowed) {
                    invocation.return_dbus_error(deniedError, 'only restored may read the windows');
                    return;
                }
                const recency = recencies();
                invocation.return_value(new GLib.Variant('(aa{sv})', [normalWindows().map(window => describe(window, recency))]));
            });
        },
        MonitorsAsync(parameters, invocation) {
            checkCaller(invocation.get_sender(), allowed => {
                if (!allowed) {
                    invocation.return_dbus_error(deniedError, 'only restored may read the monitors');
                    return;
                }
                invocation.return_value(new GLib.Variant('(a(sbiiii))', [monitors()]));
            });
        },
        SetRulesAsync(parameters, invocation) {
            const [list, lifetime] = parameters;
            checkCaller(invocation.get_sender(), allowed => {
                if (!allowed) {
                    invocation.return_dbus_error(deniedError, 'only restored may place windows');
                    return;
                }
                rules = parseRules(list);
                applied = [];
                groupOfProcess.clear();
                untold = [];
                rulesExpire = GLib.get_monotonic_time() + Math.min(lifetime, 600) * 1000000;
                invocation.return_value(null);
            });
        },
        AppliedAsync(parameters, invocation) {
            checkCaller(invocation.get_sender(), allowed => {
                if (!allowed) {
                    invocation.return_dbus_error(deniedError, 'only restored may read the rules');
                    return;
                }
                invocation.return_value(new GLib.Variant('(a(st))', [applied]));
            });
        },
        get Version() {
            return 1;
        },
    };

    return {
        enable() {
            cancellable = new Gio.Cancellable();
            exported = Gio.DBusExportedObject.wrapJSObject(interfaceXML, service);
            exported.export(Gio.DBus.session, objectPath);
            watch = Gio.bus_watch_name_on_connection(Gio.DBus.session, 'org.restored1', Gio.BusNameWatcherFlags.NONE,
                (connection, name, nameOwner) => {
                    owner = nameOwner;
                    ownerProcess = 0;
                },
                () => {
                    owner = null;
                    ownerProcess = 0;
                });
            // Mutter's DisplayConfig may own its name after the extension is enabled.
            displayConfigWatch = Gio.bus_watch_name_on_connection(Gio.DBus.session, 'org.gnome.Mutter.DisplayConfig',
                Gio.BusNameWatcherFlags.NONE, refreshConnectors, null);
            global.display.get_tab_list(Meta.TabList.NORMAL_ALL, null).reverse().forEach(markUsed);
            windowCreated = global.display.connect('window-created', onWindowCreated);
            focusChanged = global.display.connect('notify::focus-window', () => markUsed(global.display.focus_window));
            monitorsChanged = monitorManager().connect('monitors-changed', refreshConnectors);
        },
        disable() {
            cancellable.cancel();
            cancellable = null;
            for (const cleanup of [...cleanups])
                cleanup();
            global.display.disconnect(windowCreated);
            global.display.disconnect(focusChanged);
            lastUsed.clear();
            monitorManager().disconnect(monitorsChanged);
            Gio.bus_unwatch_name(watch);
            Gio.bus_unwatch_name(displayConfigWatch);
            exported.unexport();
            exported = null;
            rules = [];
            applied = [];
            groupOfProcess.clear();
            untold = [];
            owner = null;
            ownerProcess = 0;
        },
    };
}
