import CGtk
import Foundation
import KeyringAuth

/// One app's window: who is signed in (the group's user, shared with every app of the group), and the ways to
/// sign in and out. Everything here runs on the main actor, which `GLibMainQueue.attach()` made GTK's main thread.
@MainActor
final class AuthWindow {
    private let name: String
    private let auth: Auth
    private let window: UnsafeMutablePointer<GtkWidget>
    private let headline = gtk_label_new(nil)!
    private let caption = gtk_label_new(nil)!
    private let uid = AuthWindow.valueLabel()
    private let email = AuthWindow.valueLabel()
    private let provider = AuthWindow.valueLabel()
    private let verified = AuthWindow.valueLabel()
    private let status = gtk_label_new(nil)!
    private let emailEntry = gtk_entry_new()!
    private let passwordEntry = gtk_password_entry_new()!
    private let anonymousButton = gtk_button_new_with_mnemonic("Sign in _anonymously")!
    private let googleButton = gtk_button_new_with_mnemonic("Sign in with _Google")!
    private let emailButton = gtk_button_new_with_mnemonic("Sign in with _email")!
    private let signOutButton = gtk_button_new_with_mnemonic("Sign _out")!
    /// The last state written to standard output, so that a token refresh (same user, same fields) is not written again.
    private var shown: String?

    init(application: UnsafeMutablePointer<GtkApplication>, name: String, auth: Auth) {
        self.name = name
        self.auth = auth
        window = gtk_application_window_new(application)
        gtk_window_set_title(gtkCast(window), "KeyringAuth · \(name)")
        gtk_window_set_default_size(gtkCast(window), 420, -1)
        gtk_window_set_child(gtkCast(window), layout())
        gtk_label_set_text(gtkCast(caption), "\(name), one of the apps of \(auth.userAccessGroup ?? "no group")")
        gtk_window_set_focus(gtkCast(window), anonymousButton)
        GObjectSignals.connect(anonymousButton, "clicked") { [unowned self] in signInAnonymously() }
        GObjectSignals.connect(googleButton, "clicked") { [unowned self] in signInWithGoogle() }
        GObjectSignals.connect(emailButton, "clicked") { [unowned self] in signInWithEmail() }
        GObjectSignals.connect(passwordEntry, "activate") { [unowned self] in signInWithEmail() }
        GObjectSignals.connect(signOutButton, "clicked") { [unowned self] in signOut() }
        if ProcessInfo.processInfo.environment["GOOGLE_CLIENT_ID", default: ""].isEmpty {
            gtk_widget_set_sensitive(googleButton, 0)
            gtk_widget_set_tooltip_text(googleButton, "Set GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET (a Google \"Desktop app\" OAuth client)")
        }
    }

    /// Shows the window; `show(_:)` fills it in, from the listener.
    func present() {
        gtk_window_present(gtkCast(window))
        if ProcessInfo.processInfo.environment["DESKTOP_APP_TESTING"] == "1" { reportForTesting() }
    }

    /// Shows `user` (the group's user, or nobody), and writes what it shows to standard output.
    func show(_ user: User?) {
        let fields: [(UnsafeMutablePointer<GtkWidget>, String)]
        let line: String
        if let user {
            let providers = user.providerData.map(\.providerID).joined(separator: ",")
            fields = [
                (uid, user.uid), (email, user.email ?? "anonymous"),
                (provider, providers.isEmpty ? (user.isAnonymous ? "anonymous" : "none") : providers),
                (verified, user.isEmailVerified ? "yes" : "no"),
            ]
            gtk_label_set_markup(gtkCast(headline), "<big><b>Signed in</b></big>")
            line = "uid=\(fields[0].1) email=\(fields[1].1) provider=\(fields[2].1) verified=\(fields[3].1)"
        } else {
            fields = [(uid, "—"), (email, "—"), (provider, "—"), (verified, "—")]
            gtk_label_set_markup(gtkCast(headline), "<big><b>Signed out</b></big>")
            line = "signed-out"
        }
        for (label, value) in fields { gtk_label_set_text(gtkCast(label), value) }  // text, never markup: stored data
        gtk_widget_set_sensitive(signOutButton, user == nil ? 0 : 1)
        if line != shown {
            shown = line
            say("shows \(line)")
        }
    }

    // MARK: Actions, each an async call on the main actor: the window stays responsive while it waits.

    private func signInAnonymously() {
        perform("Signing in anonymously…") { auth in _ = try await auth.signInAnonymously() }
    }

    private func signInWithEmail() {
        let email = String(cString: gtk_editable_get_text(gtkCast(emailEntry)))
        let password = String(cString: gtk_editable_get_text(gtkCast(passwordEntry)))
        perform("Signing in as \(email)…") { auth in
            do {
                _ = try await auth.signIn(withEmail: email, password: password)
            } catch let error as AuthError where error.code == .userNotFound {
                _ = try await auth.createUser(withEmail: email, password: password)  // a new address: its account
            }
        }
        gtk_editable_set_text(gtkCast(passwordEntry), "")
    }

    private func signInWithGoogle() {
        let environment = ProcessInfo.processInfo.environment
        let flow = DesktopOAuthFlow(
            provider: .google, clientID: environment["GOOGLE_CLIENT_ID", default: ""],
            clientSecret: environment["GOOGLE_CLIENT_SECRET"])
        perform("Sign in with Google in your browser…") { auth in
            let credential = try await flow.getCredential { _ in }
            _ = try await auth.signIn(with: credential)
        }
    }

    /// Signs out every app of the group. `signOut()` waits for D-Bus, so it runs on a queue of its own, never on GTK's
    /// thread (as `Auth.configure` and `useUserAccessGroup` would, called once the window shows).
    private func signOut() {
        setStatus("Signing out…")
        DispatchQueue.global().async { [auth] in
            let failure: Error?
            do {
                try auth.signOut()
                failure = nil
            } catch {
                failure = error
            }
            Task { @MainActor in
                if let failure { self.fail(failure) } else { self.setStatus("") }
            }
        }
    }

    /// Runs `action` in a task on the main actor with the buttons insensitive, then shows its error, if any. The
    /// result itself is shown by the listener, as every app of the group shows it.
    private func perform(_ what: String, _ action: @escaping @MainActor (Auth) async throws -> Void) {
        setStatus(what)
        setBusy(true)
        Task {
            defer { setBusy(false) }
            do {
                try await action(auth)
                setStatus("")
            } catch {
                fail(error)
            }
        }
    }

    /// Shows the error's message; every error an `Auth` call throws is an `AuthError`, which names its code.
    private func fail(_ error: Error) {
        setStatus(error.localizedDescription)
        say("error \((error as? AuthError)?.code.name ?? "unexpected"): \(error.localizedDescription)")
    }

    private func setStatus(_ text: String) { gtk_label_set_text(gtkCast(status), text) }

    private func setBusy(_ busy: Bool) {
        for button in [anonymousButton, emailButton] { gtk_widget_set_sensitive(button, busy ? 0 : 1) }
    }

    /// Writes a line to standard output at once, stored data escaped: any process of the session can write the keyring.
    private func say(_ line: String) {
        let printable = line.unicodeScalars.map { scalar in
            scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
                ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }
        FileHandle.standardOutput.write(Data("\(name) \(printable.joined())\n".utf8))
    }

    // MARK: Layout

    private func layout() -> UnsafeMutablePointer<GtkWidget> {
        let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 10)!
        for margin in [gtk_widget_set_margin_top, gtk_widget_set_margin_bottom, gtk_widget_set_margin_start, gtk_widget_set_margin_end] {
            margin(box, 18)
        }
        let heading = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2)!
        for label in [headline, caption] {
            gtk_label_set_xalign(gtkCast(label), 0)
            gtk_box_append(gtkCast(heading), label)
        }
        gtk_widget_add_css_class(caption, "dim-label")
        gtk_box_append(gtkCast(box), heading)

        let grid = gtk_grid_new()!
        gtk_grid_set_row_spacing(gtkCast(grid), 4)
        gtk_grid_set_column_spacing(gtkCast(grid), 12)
        for (row, (title, value)) in [("User ID", uid), ("Email", email), ("Provider", provider), ("Verified", verified)].enumerated() {
            let label = gtk_label_new(title)!
            gtk_label_set_xalign(gtkCast(label), 0)
            gtk_widget_add_css_class(label, "dim-label")
            gtk_grid_attach(gtkCast(grid), label, 0, Int32(row), 1, 1)
            gtk_grid_attach(gtkCast(grid), value, 1, Int32(row), 1, 1)
        }
        gtk_box_append(gtkCast(box), grid)

        gtk_box_append(gtkCast(box), row(anonymousButton, googleButton))
        gtk_entry_set_placeholder_text(gtkCast(emailEntry), "Email")
        setStringProperty(passwordEntry, "placeholder-text", "Password")  // a property with no setter function
        gtk_password_entry_set_show_peek_icon(gtkCast(passwordEntry), 1)
        gtk_widget_set_hexpand(emailEntry, 1)
        gtk_widget_set_hexpand(passwordEntry, 1)
        gtk_box_append(gtkCast(box), row(emailEntry, passwordEntry, emailButton))
        gtk_box_append(gtkCast(box), row(signOutButton))

        gtk_label_set_xalign(gtkCast(status), 0)
        gtk_label_set_wrap(gtkCast(status), 1)
        gtk_widget_add_css_class(status, "dim-label")
        gtk_box_append(gtkCast(box), status)
        return box
    }

    private func setStringProperty(_ object: UnsafeMutablePointer<GtkWidget>, _ property: String, _ text: String) {
        var value = GValue()
        g_value_init(&value, GType(16 << 2))  // G_TYPE_STRING, a macro Swift cannot import
        defer { g_value_unset(&value) }
        g_value_set_string(&value, text)
        g_object_set_property(UnsafeMutableRawPointer(object).assumingMemoryBound(to: GObject.self), property, &value)
    }

    private func row(_ widgets: UnsafeMutablePointer<GtkWidget>...) -> UnsafeMutablePointer<GtkWidget> {
        let row = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 8)!
        for widget in widgets { gtk_box_append(gtkCast(row), widget) }
        return row
    }

    private static func valueLabel() -> UnsafeMutablePointer<GtkWidget> {
        let label = gtk_label_new("—")!
        gtk_label_set_xalign(gtkCast(label), 0)
        gtk_label_set_selectable(gtkCast(label), 1)
        gtk_label_set_ellipsize(gtkCast(label), PANGO_ELLIPSIZE_MIDDLE)
        return label
    }

    /// For the test that clicks and types into the window (`DESKTOP_APP_TESTING=1`): once the window is first drawn,
    /// writes where each button's and entry's centre is, in pixels of the window's X surface, as `layout
    /// anonymous=X,Y … sign-out=X,Y`; and `focus email-entry` or `focus password-entry` when an entry gains the
    /// keyboard focus, after which typed keys reach it.
    private func reportForTesting() {
        let callback: GtkTickCallback = { _, _, data in
            let window = Unmanaged<AuthWindow>.fromOpaque(data!).takeUnretainedValue()
            return MainActor.assumeIsolated { window.writeLayout() ? 0 : 1 }  // G_SOURCE_REMOVE once written
        }
        gtk_widget_add_tick_callback(window, callback, Unmanaged.passUnretained(self).toOpaque(), nil)
        for (key, entry) in [("email-entry", emailEntry), ("password-entry", passwordEntry)] {
            let focus = gtk_event_controller_focus_new()!
            GObjectSignals.connect(UnsafeMutableRawPointer(focus), "enter") { [unowned self] in say("focus \(key)") }
            gtk_widget_add_controller(entry, focus)
        }
    }

    private func writeLayout() -> Bool {
        var surfaceX = 0.0, surfaceY = 0.0
        gtk_native_get_surface_transform(gtkCast(window), &surfaceX, &surfaceY)
        var places: [String] = []
        let widgets = [
            ("anonymous", anonymousButton), ("google", googleButton), ("email-entry", emailEntry),
            ("password-entry", passwordEntry), ("email", emailButton), ("sign-out", signOutButton),
        ]
        for (key, button) in widgets {
            var bounds = graphene_rect_t()
            // Not before the first allocation, which a first frame may precede.
            guard gtk_widget_get_width(button) > 0, gtk_widget_compute_bounds(button, window, &bounds) != 0 else { return false }
            let x = Int(surfaceX + Double(bounds.origin.x + bounds.size.width / 2))
            let y = Int(surfaceY + Double(bounds.origin.y + bounds.size.height / 2))
            places.append("\(key)=\(x),\(y)")
        }
        say("layout \(places.joined(separator: " "))")
        return true
    }
}
