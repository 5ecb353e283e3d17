// restored's window places, the entry for GNOME Shell 45 and later (ES
// modules). The work is in core.js, shared with the legacy entry.
import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import Meta from 'gi://Meta';
import Shell from 'gi://Shell';
import { Extension } from 'resource:///org/gnome/shell/extensions/extension.js';

import { createWindowPlaces } from './core.js';

export default class WindowPlacesExtension extends Extension {
    enable() {
        this._places = createWindowPlaces({ Gio, GLib, Meta, Shell, global });
        this._places.enable();
    }

    disable() {
        this._places.disable();
        this._places = null;
    }
}
