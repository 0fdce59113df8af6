package maintenance

import "go.mongodb.org/mongo-driver/v2/bson"

func parseHex(s string) (bson.ObjectID, error) { return bson.ObjectIDFromHex(s) }
