"""What a pairwise verdict says: the response preferred (a, b), a tie, or both bad; and what a POSTed choice names."""

A, B, TIE, BOTH_BAD = "a", "b", "tie", "both_bad"
SIDES = (A, B)
OTHER = {A: B, B: A}  # the response on the other side
# What a POSTed choice names: the side shown, not the candidate (the page shuffles them).
CHOICES = ("left", "right", TIE, BOTH_BAD)
