package lookalike

import "testing"

func TestLookAlikes(t *testing.T) {
	for _, r := range []rune{0x200B, 0x200D, 0x202E, 0x2066, 0xFEFF, 0x00A0, 0x2009, 0x3000, 0x00AD, 0x115F, 0x3164, 0x2028, 0x0007, 0xE000} {
		if !Invisible(r) {
			t.Errorf("%U is not found invisible", r)
		}
	}
	for _, r := range []rune{'a', ' ', 'é', 'Ж', '中', '-', '/', 0x0301, 0xFE0F} {
		if Invisible(r) {
			t.Errorf("%U is found invisible", r)
		}
	}
	if !SlashLike(0x2215) || SlashLike('/') {
		t.Error("SlashLike")
	}
	if Fold("ＡＬＬ") != Fold("all") || Fold("Ｗｏｒｋ") != Fold("WORK") || Fold("Cafe\u0301") != Fold("Café") || Fold("‥") != ".." {
		t.Errorf("Fold: %q %q %q %q", Fold("ＡＬＬ"), Fold("Ｗｏｒｋ"), Fold("Cafe\u0301"), Fold("‥"))
	}
	if Compatible("ａ.md") || Compatible("x‥y") || !Compatible("café notes.md") {
		t.Error("Compatible")
	}
	if NFC("Cafe\u0301") != "Café" {
		t.Error("NFC")
	}
}
