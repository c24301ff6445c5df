"""The fitted window's loop check and the invented-segment filter (pure: no model)."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
try:
    from faster_whisper.transcribe import Segment, Word
    from parley_engine_host.recognizer import (loop_start, segments_loop_start, trimmed, without_invented,
                                                without_runaway, without_tail_windows)
except ImportError as error:  # faster-whisper absent: the engine host's own tests say how to set up
    raise unittest.SkipTest(f"engine host dependencies missing: {error}") from error


def segment(text: str, *probabilities: float, seek: int = 0):
    words = [Word(word=w, start=i * 0.5, end=i * 0.5 + 0.4, probability=p)
             for i, (w, p) in enumerate(zip(text.split(), probabilities))]
    return Segment(id=0, seek=seek, start=seek / 100, end=seek / 100 + len(words) * 0.5, text=" " + text, tokens=[], avg_logprob=-0.3,
                   compression_ratio=1.0, no_speech_prob=0.01, words=words or None, temperature=0.0)


class LoopTest(unittest.TestCase):
    def test_loops_seen_in_fitted_windows_are_found_where_they_start(self):
        for text, start in [
            ("Blueberry Blueberry", 1), ("Grass Grass Helper", 1), ("Grass Helper Grass Hel", 2),
            ("Picovoice Picovoice Picovoice Picovoice P", 1), ("Terminator Picovoice Picovoice", 2),
            ("This is the multi-keyboard test for porcupine This is the multi-keyboard test for porcup", 7),
        ]:
            self.assertEqual(loop_start(text.split()), start, text)

    def test_letters_looping_inside_a_word_are_a_loop_but_real_words_and_numbers_are_not(self):
        for text, start in [("Grass-HHHHHHHH", 0), ("Grass Helperurururururururururururur", 1), ("Okay. Grass-H-H-H-H-", 1)]:
            self.assertEqual(segments_loop_start([segment(text)]), start, text)
        for text in ["He paid 100000 dollars.", "Mississippi bookkeeper", "Hawaii shh"]:
            self.assertIsNone(segments_loop_start([segment(text)]), text)

    def test_real_sentences_are_no_loops(self):
        for text in [
            "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.",
            "He was not an ill-disposed young man.", "an a", "Had he married a more amiable woman",
        ]:
            self.assertIsNone(loop_start(text.split()), text)

    def test_trimmed_cuts_text_and_word_times_at_the_repeat(self):
        cut = trimmed([segment("Okay.", 0.9), segment("Grass Helper Grass Hel", 0.8, 0.8, 0.3, 0.3)], 3)
        self.assertEqual([s.text.strip() for s in cut], ["Okay.", "Grass Helper"])
        self.assertEqual([w.word for w in cut[1].words], ["Grass", "Helper"])
        self.assertEqual(cut[1].end, cut[1].words[-1].end)


class TailWindowTest(unittest.TestCase):
    def test_a_window_starting_in_the_inputs_last_second_is_dropped_the_first_windows_segments_kept(self):
        heard = segment("Vous ne pouvez répondre à ce message.")
        late_first_window = segment("Oui.")  # seek 0: the first window's, however late it starts
        invented = segment("Je vous invite à vous présenter, car l'expéditeur ne possède pas", seek=528)
        kept = without_tail_windows([heard, late_first_window, invented], 5.728)
        self.assertEqual([s.text for s in kept], [heard.text, late_first_window.text])
        # A window starting earlier than the last second is speech that the first window left.
        later = segment("Et puis.", seek=450)
        self.assertEqual(len(without_tail_windows([heard, later], 5.728)), 2)


class RunawayTest(unittest.TestCase):
    def test_a_phrase_said_five_times_or_more_is_kept_once_with_its_word_times(self):
        looped = "I'm not a real " + "real " * 100 + "rea"
        kept = without_runaway([segment(looped, *[0.9] * len(looped.split()))])
        self.assertEqual(kept[0].text.strip(), "I'm not a real")
        self.assertEqual([w.word for w in kept[0].words], ["I'm", "not", "a", "real"])
        self.assertEqual(kept[0].end, kept[0].words[-1].end)
        phrase = without_runaway([segment("we will go on " + "we will go on " * 6 + "and on")])
        self.assertEqual(phrase[0].text.strip(), "we will go on and on")
        # A longer phrase (the 30 s window's runaways run to five words and more).
        sentence = without_runaway([segment("all disposed. " + "You can't just do it, you can't just do it, " * 8 + "you can't")])
        self.assertEqual(sentence[0].text.strip(), "all disposed. You can't just do it,")

    def test_real_repeats_are_left_alone(self):
        for text in ["No, no, no, no, stop.", "very very good", "ha ha ha ha", "one two one two one two"]:
            self.assertEqual(without_runaway([segment(text)])[0].text.strip(), text, text)


class InventedTest(unittest.TestCase):
    def test_made_up_segments_after_heard_ones_are_dropped(self):
        heard = segment("He was not an ill-disposed young man.", 0.9, 0.9, 0.9, 0.8, 0.7, 0.9, 0.9)
        made_up = segment("Nginx Webpack Vite Svelte", 0.01, 0.0, 0.02, 0.01)
        self.assertEqual(without_invented([heard, made_up]), [heard])

    def test_a_biased_term_alone_is_kept_but_pure_invention_is_not(self):
        term = segment("Picovoice.", 0.07)
        self.assertEqual(without_invented([term, segment("Picovoice.", 0.0)]), [term])
        self.assertEqual(without_invented([segment("Android Android", 0.01, 0.02)]), [])
        self.assertEqual(without_invented([]), [])


if __name__ == "__main__":
    unittest.main()
