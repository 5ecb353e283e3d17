// restored's window places, the entry for GNOME Shell 43 and 44 (legacy
// imports). The work is in core.js, shared with the ES module entry.
'use strict';

const { Gio, GLib, Meta, Shell } = imports.gi;
const Me = imports.misc.extensionUtils.getCurrentExtension();

let places = null;

function init() {
}

function enable() {
    places = Me.imports.core.createWindowPlaces({ Gio, GLib, Meta, Shell, global });
    places.enable();
}

function disable() {
    places.disable();
    places = null;
}
