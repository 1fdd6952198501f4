#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The request's controls and the loop's turns: playing, pausing, resuming, stopping and
/// failing, in whichever phase they come.
extension CacheExchangeState {
    /// The play to run on the loop's turn (or a resume): the response being played, unless the
    /// receiver paused it. It runs on a copy, outside any access to this value, so that whatever
    /// its receiver does meanwhile finds the value as it is; ``played(_:_:wantsProgress:)`` takes
    /// the copy back.
    var playable: CachePlay? {
        guard case .playing(let play) = phase, !play.isPaused else { return nil }
        return play
    }

    /// `play` ran as far as `step`: ends the request when it was delivered or refused, else keeps
    /// it paused. Nothing when it was stopped meanwhile.
    mutating func played(_ play: CachePlay, _ step: ResponsePlayback.Step, wantsProgress: Bool) -> Action? {
        guard case .playing = phase else { return nil }
        switch step {
        case .delivered:
            phase = .finished
            return .end(TransferEnd(result: .success(play.response), finalProgress: play.progress(wanted: wantsProgress)))
        case .paused:
            var paused = play
            paused.isPaused = true
            phase = .playing(paused)
            return nil
        case .refused(let error):
            phase = .finished
            return .end(TransferEnd(result: .failure(error), finalProgress: play.progress(wanted: wantsProgress)))
        }
    }

    /// The receiver asked to pause: after the lookup, before the next play, or beneath.
    mutating func pauseAsked() -> Action? {
        switch phase {
        case .lookingUp: phase = .lookingUp(paused: true)
        case .storing, .validating, .absorbingNotModified, .invalidating: return .pauseBeneath
        case .playing(var play):
            play.isPaused = true
            phase = .playing(play)
        case .finished: break
        }
        return nil
    }

    /// The receiver asked to resume: a play goes on now (before its turn, if that has not come).
    mutating func resumeAsked() -> Action? {
        switch phase {
        case .lookingUp: phase = .lookingUp(paused: false)
        case .storing, .validating, .absorbingNotModified, .invalidating: return .resumeBeneath
        case .playing(var play):
            play.isPaused = false
            phase = .playing(play)
            return .playNow
        case .finished: break
        }
        return nil
    }

    /// The request was stopped: nothing more is reported. A lookup's answer and a play's turn
    /// find it finished; a transfer is stopped beneath.
    mutating func stopAsked(wantsProgress: Bool) -> Action? {
        switch phase {
        case .lookingUp:
            phase = .finished
            return .stopped(nil)
        case .storing, .validating, .absorbingNotModified, .invalidating:
            phase = .finished
            return .stopBeneath
        case .playing(let play):
            phase = .finished
            return .stopped(play.progress(wanted: wantsProgress))
        case .finished:
            return nil
        }
    }

    /// The loop failed with `error`: a lookup or a play ends with it (a transfer beneath is
    /// ended by the engine beneath).
    mutating func loopFailed(_ error: RequestError, wantsProgress: Bool) -> Action? {
        switch phase {
        case .lookingUp:
            phase = .finished
            return .end(TransferEnd(result: .failure(error)))
        case .playing(let play):
            phase = .finished
            return .end(TransferEnd(result: .failure(error), finalProgress: play.progress(wanted: wantsProgress)))
        case .storing, .validating, .absorbingNotModified, .invalidating, .finished:
            return nil
        }
    }
}
