/// The order an ``AnimatedImagePlayer`` shows frames in: SDWebImage's
/// `SDAnimatedImagePlaybackMode`. One loop is one pass through that order.
public enum AnimationPlaybackMode: Sendable, Hashable, CaseIterable {
    /// First frame to last.
    case normal
    /// Last frame to first.
    case reverse
    /// First to last, then back, without showing either end twice in a row.
    case bounce
    /// Last to first, then forwards again, without showing either end twice in a row.
    case reversedBounce

    /// The frame indices of one loop of an animation of `frameCount` frames.
    func order(frameCount: Int) -> [Int] {
        let forwards = Array(0..<max(1, frameCount))
        let backwards = Array(forwards.reversed())
        switch self {
        case .normal: return forwards
        case .reverse: return backwards
        case .bounce: return forwards + backwards.dropFirst().dropLast()
        case .reversedBounce: return backwards + forwards.dropFirst().dropLast()
        }
    }
}
