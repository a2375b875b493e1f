import CSDLLoader
import ConfCore
import ConfMedia

/// The video window (`--video-view window`): an SDL2 window with everyone's picture laid out by
/// `TileLayout`, a name and badges on each tile, a green frame round whoever talks, our own
/// picture small in a corner. It resizes; `f` toggles full screen; `m`, `v` and `q` (and the
/// close button) come back as `Action`s for the call to act on.
///
/// Threading: the event loop thread only (SDL's video calls belong on the thread that made the
/// window); `pollActions` and `draw` are called from a timer on it. Names and badges come from
/// the network: control and format characters are escaped and the length bounded before drawing.
public final class VideoWindow {
    public enum Action: Equatable, Sendable { case toggleMute, toggleCamera, leave }

    /// One participant's tile.
    public struct Tile: Equatable {
        public var id: String
        public var name: String
        public var picture: VideoFrame?
        /// "muted", "camera off", "hidden": shown after the name.
        public var badges: [String]
        public var talking: Bool

        public init(id: String, name: String, picture: VideoFrame?, badges: [String], talking: Bool) {
            (self.id, self.name, self.picture, self.badges, self.talking) = (id, name, picture, badges, talking)
        }

        /// Its shape in the layout: its picture's, 4:3 while it has none.
        var aspect: Double { picture.map { Double($0.width) / Double(max(1, $0.height)) } ?? 4.0 / 3 }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    private let window: OpaquePointer
    private let renderer: OpaquePointer
    private let font: OpaquePointer?
    /// One streaming I420 texture per tile (a GPU renderer converts it to RGB itself), remade
    /// when its picture's size changes.
    private var textures: [String: (texture: OpaquePointer, width: Int, height: Int)] = [:]
    /// Rendered labels, by text; those not drawn in a frame are freed after it.
    private var labels: [String: (texture: OpaquePointer, width: Int32, height: Int32)] = [:]
    private var fullScreen = false
    /// Something happened to the window itself (resized, exposed): draw even if no tile changed.
    private var damaged = true
    private var closed = false

    /// Where to look for a font for the names (fonts-dejavu-core; the first that opens is used).
    static let fontPaths = ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/TTF/DejaVuSans.ttf",
                            "/usr/share/fonts/truetype/freefont/FreeSans.ttf", "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf"]

    /// Whether a display server is named in the environment (`--video-view auto`).
    public static var displayAvailable: Bool {
        let names: [String] = ["DISPLAY", "WAYLAND_DISPLAY"]
        return names.contains { name in getenv(name).map { $0.pointee != 0 } ?? false }
    }

    /// Opens the window; `title` is escaped like every name.
    public init(title: String, width: Int32 = 960, height: Int32 = 540) throws(Failure) {
        var error = [CChar](repeating: 0, count: 256)
        guard conf_sdl_load(&error, error.count) == 0 else {
            throw Failure(description: "cannot load SDL2 for the window — install libsdl2-2.0-0 and libsdl2-ttf-2.0-0: \(error.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })")
        }
        // GLib handles SIGINT and SIGTERM for conf: SDL must not turn them into a quit event.
        _ = sdl.SDL_SetHint("SDL_NO_SIGNAL_HANDLERS", "1")
        // A call is video people watch: the screen saver stays off while the window is open (SDL's default, said aloud).
        _ = sdl.SDL_SetHint("SDL_VIDEO_ALLOW_SCREENSAVER", "0")
        guard sdl.SDL_InitSubSystem(UInt32(SDL_INIT_VIDEO)) == 0 else {
            throw Failure(description: "cannot open the display: \(Self.lastError())")
        }
        var bounds = SDL_Rect()
        var size = (width, height)
        if sdl.SDL_GetDisplayUsableBounds(0, &bounds) == 0, bounds.w > 0, bounds.h > 0 {
            size = (min(width, bounds.w), min(height, bounds.h))
        }
        let centred = Int32(bitPattern: 0x2FFF_0000)  // SDL_WINDOWPOS_CENTERED, a macro Swift cannot import
        guard let window = sdl.SDL_CreateWindow(Self.printable(title, limit: 120), centred, centred, size.0, size.1,
                                            SDL_WINDOW_RESIZABLE.rawValue | SDL_WINDOW_ALLOW_HIGHDPI.rawValue) else {
            let error = Self.lastError()
            sdl.SDL_QuitSubSystem(UInt32(SDL_INIT_VIDEO))
            throw Failure(description: "cannot open a window: \(error)")
        }
        // Accelerated where there is a GPU, SDL's software renderer otherwise (Xvfb, a remote X).
        guard let renderer = sdl.SDL_CreateRenderer(window, -1, 0) ?? sdl.SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE.rawValue) else {
            let error = Self.lastError()
            sdl.SDL_DestroyWindow(window)
            sdl.SDL_QuitSubSystem(UInt32(SDL_INIT_VIDEO))
            throw Failure(description: "cannot draw in the window: \(error)")
        }
        self.window = window
        self.renderer = renderer
        _ = sdl.SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_BLEND)
        font = sdl.TTF_WasInit() > 0 || sdl.TTF_Init() == 0 ? Self.fontPaths.lazy.compactMap { sdl.TTF_OpenFont($0, 15) }.first : nil
    }

    /// Whether names can be drawn (a font was found): without one the tiles have none.
    public var drawsNames: Bool { font != nil }

    /// Keys and window events since the last call. `f` (and Escape, out of it) toggles full
    /// screen here; a resize or an uncovered window makes the next `draw` repaint.
    public func pollActions() -> [Action] {
        guard !closed else { return [] }
        var actions: [Action] = []
        var event = SDL_Event()
        while sdl.SDL_PollEvent(&event) != 0 {
            switch event.type {
            case SDL_QUIT.rawValue:
                actions.append(.leave)
            case SDL_WINDOWEVENT.rawValue:
                damaged = true
            case SDL_KEYDOWN.rawValue where event.key.repeat == 0:
                switch event.key.keysym.sym {
                case Int32(UInt8(ascii: "m")): actions.append(.toggleMute)
                case Int32(UInt8(ascii: "v")): actions.append(.toggleCamera)
                case Int32(UInt8(ascii: "q")): actions.append(.leave)
                case Int32(UInt8(ascii: "f")): setFullScreen(!fullScreen)
                case Int32(SDLK_ESCAPE.rawValue) where fullScreen: setFullScreen(false)
                default: break
                }
            default:
                break
            }
        }
        return actions
    }

    private var lastDrawn: (tiles: [Tile], own: Tile?)?

    /// Draws `tiles` (in the order given; `TileLayout` sorts them by shape) and `own` in the
    /// bottom-right corner; nothing when neither they nor the window changed since the last time.
    public func draw(_ tiles: [Tile], own: Tile?) {
        guard !closed else { return }
        if !damaged, let last = lastDrawn, last.tiles == tiles, last.own == own { return }
        damaged = false
        lastDrawn = (tiles, own)
        var width: Int32 = 0, height: Int32 = 0
        _ = sdl.SDL_GetRendererOutputSize(renderer, &width, &height)
        _ = sdl.SDL_SetRenderDrawColor(renderer, 18, 18, 20, 255)
        _ = sdl.SDL_RenderClear(renderer)
        var used = Set<String>()
        // Our own picture: a fifth of the window's width (at most a third of its height), at its
        // shape, in the bottom-right corner, in a band below the others' so it covers none of them.
        var band: Int32 = 0
        if let own {
            let h = min(height / 3, Int32(Double(max(Int32(64), width / 5)) / own.aspect)), w = Int32(Double(h) * own.aspect)
            band = h + 12
            drawTile(own, in: SDL_Rect(x: width - w - 8, y: height - h - 8, w: w, h: h), labels: &used)
        }
        let rects = TileLayout.arrange(tiles.map(\.aspect), width: Int(width), height: Int(height - band), gap: 6)
        for (tile, rect) in zip(tiles, rects) {
            drawTile(tile, in: SDL_Rect(x: Int32(rect.x), y: Int32(rect.y), w: Int32(rect.width), h: Int32(rect.height)), labels: &used)
        }
        for (text, label) in labels where !used.contains(text) {
            sdl.SDL_DestroyTexture(label.texture)
            labels[text] = nil
        }
        for id in textures.keys where !tiles.contains(where: { $0.id == id }) && own?.id != id {
            sdl.SDL_DestroyTexture(textures[id]!.texture)
            textures[id] = nil
        }
        sdl.SDL_RenderPresent(renderer)
    }

    private func drawTile(_ tile: Tile, in rect: SDL_Rect, labels used: inout Set<String>) {
        var rect = rect
        if let picture = tile.picture, let texture = texture(for: tile.id, picture) {
            _ = sdl.SDL_RenderCopy(renderer, texture, nil, &rect)
        } else {
            _ = sdl.SDL_SetRenderDrawColor(renderer, 48, 48, 54, 255)
            _ = sdl.SDL_RenderFillRect(renderer, &rect)
        }
        if tile.talking {
            _ = sdl.SDL_SetRenderDrawColor(renderer, 60, 220, 90, 255)
            for inset in Int32(0)..<3 {
                var frame = SDL_Rect(x: rect.x + inset, y: rect.y + inset, w: rect.w - 2 * inset, h: rect.h - 2 * inset)
                _ = sdl.SDL_RenderDrawRect(renderer, &frame)
            }
        }
        let text = ([Self.printable(tile.name, limit: 40)] + tile.badges.map { Self.printable($0, limit: 20) }).joined(separator: " · ")
        guard let label = label(text) else { return }
        used.insert(text)
        let w = min(label.width, rect.w - 12), h = label.height
        guard w > 0, rect.h > h + 12 else { return }
        var back = SDL_Rect(x: rect.x + 6, y: rect.y + rect.h - h - 10, w: w + 8, h: h + 4)
        _ = sdl.SDL_SetRenderDrawColor(renderer, 0, 0, 0, 160)
        _ = sdl.SDL_RenderFillRect(renderer, &back)
        var source = SDL_Rect(x: 0, y: 0, w: w, h: h)
        var target = SDL_Rect(x: back.x + 4, y: back.y + 2, w: w, h: h)
        _ = sdl.SDL_RenderCopy(renderer, label.texture, &source, &target)
    }

    private func texture(for id: String, _ picture: VideoFrame) -> OpaquePointer? {
        if let cached = textures[id], cached.width != picture.width || cached.height != picture.height {
            sdl.SDL_DestroyTexture(cached.texture)
            textures[id] = nil
        }
        if textures[id] == nil {
            guard let texture = sdl.SDL_CreateTexture(renderer, SDL_PIXELFORMAT_IYUV.rawValue, Int32(SDL_TEXTUREACCESS_STREAMING.rawValue),
                                                  Int32(picture.width), Int32(picture.height)) else { return nil }
            textures[id] = (texture, picture.width, picture.height)
        }
        let texture = textures[id]!.texture
        let chroma = Int32(picture.chromaWidth)
        picture.y.withUnsafeBufferPointer { y in
            picture.u.withUnsafeBufferPointer { u in
                picture.v.withUnsafeBufferPointer { v in
                    _ = sdl.SDL_UpdateYUVTexture(texture, nil, y.baseAddress, Int32(picture.width), u.baseAddress, chroma, v.baseAddress, chroma)
                }
            }
        }
        return texture
    }

    private func label(_ text: String) -> (texture: OpaquePointer, width: Int32, height: Int32)? {
        if let label = labels[text] { return label }
        guard let font, !text.isEmpty, let surface = sdl.TTF_RenderUTF8_Blended(font, text, SDL_Color(r: 240, g: 240, b: 240, a: 255)) else {
            return nil
        }
        defer { sdl.SDL_FreeSurface(surface) }
        guard let texture = sdl.SDL_CreateTextureFromSurface(renderer, surface) else { return nil }
        let label = (texture, surface.pointee.w, surface.pointee.h)
        labels[text] = label
        return label
    }

    private func setFullScreen(_ on: Bool) {
        fullScreen = on
        _ = sdl.SDL_SetWindowFullscreen(window, on ? SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue : 0)
        damaged = true
    }

    /// Closes the window; it draws nothing after.
    public func close() {
        guard !closed else { return }
        closed = true
        for texture in textures.values { sdl.SDL_DestroyTexture(texture.texture) }
        for label in labels.values { sdl.SDL_DestroyTexture(label.texture) }
        textures = [:]
        labels = [:]
        if let font { sdl.TTF_CloseFont(font) }
        sdl.SDL_DestroyRenderer(renderer)
        sdl.SDL_DestroyWindow(window)
        sdl.SDL_QuitSubSystem(UInt32(SDL_INIT_VIDEO))
    }

    /// A name or badge as drawn: controls and format characters (bidirectional overrides) shown
    /// as visible escapes, as in the terminal (`TerminalEscape`), at most `limit` characters.
    static func printable(_ text: String, limit: Int) -> String {
        let clean = TerminalEscape.escape(text)
        return clean.count > limit ? String(clean.prefix(limit - 1)) + "…" : clean
    }

    private static func lastError() -> String { sdl.SDL_GetError().map { String(cString: $0) } ?? "no reason given" }
}

/// SDL2's and SDL2_ttf's functions, once `conf_sdl_load` has loaded them (VideoWindow's init).
private var sdl: conf_sdl_functions { conf_sdl().pointee }
