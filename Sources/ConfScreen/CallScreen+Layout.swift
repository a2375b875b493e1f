/// Lays the screen out on a canvas of any size: the header bar, the roster, the video grid's
/// rows (left to the video renderer), the chat pane, a hint line and the input line.
extension CallScreen {
    public struct Drawing: Sendable {
        public var canvas: Canvas
        /// Where the terminal's cursor goes (the input line while typing); nil hides it.
        public var cursor: (row: Int, column: Int)?
        /// The rows and columns kept for the video grid, from 0, if any.
        public var video: (row: Int, column: Int, rows: Int, columns: Int)?
    }

    /// Smaller than this and the screen says so instead.
    public static let minimumColumns = 40
    public static let minimumRows = 10

    public func draw(columns: Int, rows: Int) -> Drawing {
        var canvas = Canvas(columns: columns, rows: rows)
        guard columns >= Self.minimumColumns, rows >= Self.minimumRows else {
            let message = "terminal too small (\(columns)x\(rows)): conf needs \(Self.minimumColumns)x\(Self.minimumRows)"
            var row = 0
            var rest = Substring(message)
            while !rest.isEmpty, row < rows {
                canvas.put(String(rest.prefix(max(1, columns))), row: row, column: 0)
                rest = rest.dropFirst(max(1, columns))
                row += 1
            }
            return Drawing(canvas: canvas)
        }
        drawHeader(on: &canvas)
        var row = 1
        for member in [me] + others where row < rows - 4 {
            drawMember(member, row: row, on: &canvas)
            row += 1
        }
        let bottom = rows - 2  // the hint line; the input line is under it
        var video: (row: Int, column: Int, rows: Int, columns: Int)?
        let free = bottom - row - 1
        if showsVideo, free >= 8 {
            let videoRows = free * 3 / 5
            video = (row, 0, videoRows, columns)
            canvas.markForeign(row: row, column: 0, rows: videoRows, columns: columns)
            row += videoRows
        }
        drawChat(on: &canvas, from: row, to: bottom)
        if mode == .help { drawHelp(on: &canvas) }
        if mode == .invitation { drawInvitation(on: &canvas) }
        if let hint {
            canvas.put(hint, row: bottom, column: 0, style: CellStyle(foreground: .yellow, bold: mode == .confirmingLeave))
        }
        let cursor = drawInput(on: &canvas, row: rows - 1)
        return Drawing(canvas: canvas, cursor: cursor, video: video)
    }

    private func drawHeader(on canvas: inout Canvas) {
        let bar = CellStyle(reverse: true)
        canvas.fill(row: 0, style: bar)
        let room = header.roomName.isEmpty ? header.room : "\(header.roomName) \(header.room)"
        var state: [String] = []
        if let muted = header.microphoneMuted { state.append(muted ? "MIC MUTED" : "mic on") }
        if let off = header.cameraOff { state.append(off ? "camera off" : "camera on") }
        if header.listener { state.append("listening") }
        state.append("rendezvous \(header.rendezvous)")
        var line = ([" conf", room, Self.clock(header.elapsed)] + state).joined(separator: "  ·  ")
        if line.count > canvas.columns {  // narrow: what you are sending comes first, the room last
            line = ([" conf"] + state + [Self.clock(header.elapsed), room]).joined(separator: " · ")
        }
        canvas.put(line, row: 0, column: 0, style: bar)
    }

    /// `› ann (p2)            ●●● host 12ms 0%  ▮▮▮▮····  compare: elder kettle marble sprout  talking  muted`
    ///
    /// Nothing is cut: what does not fit is left out whole, the least needed first. The words to
    /// compare come right after the meter; on a narrow terminal the figures and the meter make
    /// room for them.
    private func drawMember(_ member: Member, row: Int, on canvas: inout Canvas) {
        let isMe = member.id == me.id
        var marks: [(String, CellStyle)] = []
        if !member.words.isEmpty, !compared.contains(member.id) {
            marks.append(("compare: " + member.words.joined(separator: " "), CellStyle(foreground: .cyan)))
        }
        if member.muted { marks.append(("muted", CellStyle(foreground: .red))) }
        if member.talking { marks.append(("talking", CellStyle(foreground: .green, bold: true))) }
        if member.mutedHere { marks.append(("muted here", CellStyle(foreground: .yellow))) }
        if member.listener || (isMe && header.listener) { marks.append(("listener", CellStyle(dim: true))) }
        if member.cameraOff { marks.append(("camera off", CellStyle(foreground: .gray))) }
        if member.hidden { marks.append(("hidden", CellStyle(foreground: .gray))) }
        let label = isMe ? "\(member.name) (you)" : "\(member.name) (\(member.id))"
        // Wide: label 20, link 20 (marks and figures), meter 8. Compact when the first mark would
        // not fit that way: the label as long as it is (at most 20), the link's marks only.
        let firstMark = marks.first.map { CellWidth.of($0.0) } ?? 0
        let compact = 2 + 21 + 20 + 9 + firstMark > canvas.columns
        var column = 0
        canvas.put(selected == member.id ? "›" : " ", row: row, column: 0, style: CellStyle(bold: true))
        column = 2
        let labelWidth = compact ? min(20, CellWidth.of(label)) : 20
        canvas.put(label, row: row, column: column, width: labelWidth, style: CellStyle(bold: member.talking))
        column += labelWidth + 1
        let linkWidth = compact ? 4 : 20
        if isMe {
            column += compact ? 0 : linkWidth
        } else if member.listener && !member.connected {
            if !compact { canvas.put("listening", row: row, column: column, width: 19, style: CellStyle(dim: true)) }
            column += compact ? 0 : linkWidth
        } else if let quality = member.quality {
            let color: CellStyle.Color = quality == .good ? .green : quality == .fair ? .yellow : .red
            let dots = String(repeating: "●", count: quality.rawValue + 1) + String(repeating: "○", count: 2 - quality.rawValue)
            canvas.put(dots, row: row, column: column, style: CellStyle(foreground: color))
            if !compact {
                var figures = " \(member.path ?? "?")"
                if let rtt = member.roundTrip { figures += " \(Int((Double(rtt.components.attoseconds) / 1e15).rounded()) + Int(rtt.components.seconds) * 1000)ms" }
                if let loss = member.lossPercent { figures += " \(Int(loss.rounded()))%" }
                canvas.put(figures, row: row, column: column + 3, width: 16)
            }
            column += linkWidth
        } else {
            canvas.put(compact ? "…" : "connecting…", row: row, column: column, width: linkWidth - 1, style: CellStyle(dim: true))
            column += linkWidth
        }
        if !compact { column += drawLevel(member, row: row, column: column, on: &canvas) + 1 }
        // Narrower still: the words without their "compare: ".
        if compact, let first = marks.first, first.0.hasPrefix("compare: "), column + CellWidth.of(first.0) > canvas.columns {
            marks[0].0 = String(first.0.dropFirst("compare: ".count))
        }
        for (text, style) in marks where column + CellWidth.of(text) <= canvas.columns {
            column += canvas.put(text, row: row, column: column, style: style) + 2
        }
    }

    /// Eight cells of level meter; returns its width.
    private func drawLevel(_ member: Member, row: Int, column: Int, on canvas: inout Canvas) -> Int {
        let width = 8
        guard let level = member.level, !(member.id == me.id ? header.microphoneMuted ?? true : member.muted) else {
            canvas.put(String(repeating: "·", count: width), row: row, column: column, style: CellStyle(dim: true))
            return width
        }
        // 60 dB below full scale and quieter is nothing; full scale is every cell.
        let lit = max(0, min(width, (60 - Int(level)) * width / 60))
        canvas.put(String(repeating: "▮", count: lit), row: row, column: column, style: CellStyle(foreground: member.talking ? .green : .gray))
        canvas.put(String(repeating: "·", count: width - lit), row: row, column: column + lit, style: CellStyle(dim: true))
        return width
    }

    private func drawChat(on canvas: inout Canvas, from top: Int, to bottom: Int) {
        guard bottom - top >= 2 else { return }
        canvas.fill(row: top, style: CellStyle(dim: true))
        let title = chatScroll > 0 ? "── chat (\(chatScroll) newer below: Page Down) " : "── chat "
        canvas.put(title + String(repeating: "─", count: canvas.columns), row: top, column: 0, style: CellStyle(dim: true))
        let height = bottom - top - 1
        // The newest lines that fit, wrapped, bottom up.
        var lines: [(String, CellStyle)] = []
        for line in chat.dropLast(chatScroll).reversed() where lines.count < height {
            let style: CellStyle
            switch line.kind {
            case .message: style = .plain
            case .own: style = CellStyle(foreground: .cyan)
            case .event: style = CellStyle(dim: true)
            case .problem: style = CellStyle(foreground: .red)
            }
            let text = line.time + " " + (line.from.map { "\($0): " } ?? "") + line.text
            lines.append(contentsOf: Self.wrap(text, width: canvas.columns).reversed().map { ($0, style) })
        }
        for (offset, (text, style)) in lines.prefix(height).reversed().enumerated() {
            canvas.put(text, row: top + 1 + offset + max(0, height - min(height, lines.count)), column: 0, style: style)
        }
    }

    private func drawHelp(on canvas: inout Canvas) {
        // Two to a line, in the reference's order.
        let cells = Self.keyReference.map { "\($0.boxLabel)  \($0.short)" }
        let leftWidth = stride(from: 0, to: cells.count, by: 2).map { cells[$0].count }.max() ?? 0
        let keys = stride(from: 0, to: cells.count, by: 2).map { index in
            index + 1 < cells.count ? cells[index] + String(repeating: " ", count: leftWidth + 1 - cells[index].count) + cells[index + 1] : cells[index]
        }
        let lines = ["Keys", ""] + keys + ["", "Commands after /:"] + Self.wrap(commandsHelp, width: 44) + ["", "any key closes this"]
        let width = min(canvas.columns - 2, 50)
        let top = max(1, (canvas.rows - lines.count) / 2 - 1)
        let left = max(0, (canvas.columns - width) / 2)
        let box = CellStyle(reverse: true)
        for (index, line) in lines.enumerated() where top + index < canvas.rows - 2 {
            canvas.fill(row: top + index, column: left, width: width, style: box)
            canvas.put(line, row: top + index, column: left + 2, width: width - 4, style: index == 0 ? CellStyle(bold: true, reverse: true) : box)
        }
    }

    /// The input line while typing (the cursor in it), else the keys to press.
    private func drawInput(on canvas: inout Canvas, row: Int) -> (row: Int, column: Int)? {
        guard mode == .typing else {
            canvas.put(Self.keyLine(columns: canvas.columns), row: row, column: 0, style: CellStyle(dim: true))
            return nil
        }
        let prompt = "> "
        canvas.put(prompt, row: row, column: 0, style: CellStyle(bold: true))
        let room = canvas.columns - prompt.count - 1
        // Scroll the line so that the cursor shows: back from it while the room lasts.
        var start = input.cursor
        var widthBeforeCursor = 0
        while start > 0, widthBeforeCursor + CellWidth.of(input.text[start - 1]) <= room - 1 {
            start -= 1
            widthBeforeCursor += CellWidth.of(input.text[start])
        }
        canvas.put(String(input.text[start...]), row: row, column: prompt.count, width: room)
        return (row, prompt.count + widthBeforeCursor)
    }

    /// The keys' line at the bottom, in this order, each key whole: those that do not fit are
    /// left out, the least needed first (leave and help always stay).
    static func keyLine(columns: Int) -> String {
        let keys = ["m mic", "v camera", "Tab select", "x mute", "h hide", "c compared", "Enter chat", "i invite", "? help", "q leave"]
        let leftOutFirst = ["h hide", "x mute", "c compared", "Tab select", "v camera", "Enter chat", "i invite", "m mic"]
        var shown = keys
        for key in leftOutFirst where shown.joined(separator: "  ").count > columns {
            shown.removeAll { $0 == key }
        }
        return shown.joined(separator: "  ")
    }

    /// The links to hand over, whole: a link wider than the screen is broken only where a new
    /// part starts (`#`, `&`), so that no address, id, pin or fingerprint is split.
    private func drawInvitation(on canvas: inout Canvas) {
        let width = canvas.columns
        let box = CellStyle(reverse: true), strong = CellStyle(bold: true, reverse: true)
        func words(_ text: String, _ style: CellStyle = box) -> [(String, CellStyle)] { Self.wrap(text, width: width - 2).map { ($0, style) } }
        var lines = words("Invitation", strong) + [("", box)]
        for invite in invitation {
            lines += words(invite.label) + Self.breakLink(invite.link, width: width - 2).map { ($0, strong) } + [("", box)]
        }
        lines += words("The first link is on the clipboard if this terminal lets programs set it (OSC 52). Any key closes this.")
        let top = max(1, (canvas.rows - lines.count) / 2 - 1)
        for (index, (text, style)) in lines.enumerated() where top + index < canvas.rows - 2 {
            canvas.fill(row: top + index, column: 0, width: width, style: box)
            canvas.put(text, row: top + index, column: 1, width: width - 2, style: style)
        }
    }

    /// `link` in lines of at most `width` columns, broken only before a `#` or `&` (a part longer
    /// than a line, say a long IPv6 address, is then broken where it must be).
    static func breakLink(_ link: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var parts: [String] = []
        var part = ""
        for character in link {
            if (character == "#" || character == "&"), !part.isEmpty {
                parts.append(part)
                part = ""
            }
            part.append(character)
        }
        if !part.isEmpty { parts.append(part) }
        var lines: [String] = []
        var line = ""
        for part in parts {
            if !line.isEmpty, line.count + part.count > width {
                lines.append(line)
                line = ""
            }
            line += part
            while line.count > width {
                lines.append(String(line.prefix(width)))
                line = String(line.dropFirst(width))
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// "12:34", or "1:02:03" past an hour.
    static func clock(_ elapsed: Duration) -> String {
        let seconds = max(0, Int(elapsed.components.seconds))
        let (h, m, s) = (seconds / 3600, seconds / 60 % 60, seconds % 60)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(two(m)):\(two(s))"
    }

    /// `text` in lines of at most `width` columns, broken at spaces where it can.
    static func wrap(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        var line = ""
        var lineWidth = 0
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            let wordWidth = CellWidth.of(word)
            if lineWidth > 0, lineWidth + 1 + wordWidth > width {
                lines.append(line)
                (line, lineWidth) = ("", 0)
            } else if lineWidth > 0 {
                line += " "
                lineWidth += 1
            }
            var rest = Substring(word)
            while CellWidth.of(rest) + lineWidth > width, !rest.isEmpty {  // a word longer than a line
                var fits = 0
                var taken = rest.startIndex
                while taken < rest.endIndex, fits + CellWidth.of(rest[taken]) <= width - lineWidth {
                    fits += CellWidth.of(rest[taken])
                    taken = rest.index(after: taken)
                }
                if taken == rest.startIndex && lineWidth == 0 { taken = rest.index(after: taken) }
                lines.append(line + rest[..<taken])
                (line, lineWidth) = ("", 0)
                rest = rest[taken...]
            }
            line += rest
            lineWidth += CellWidth.of(rest)
        }
        lines.append(line)
        return lines
    }
}
