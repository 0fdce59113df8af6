package recall

import (
	"strings"
	"sync"
)

// brandTable: everyday services' brands and companies (general knowledge,
// the UK, Ireland, the US, Canada, the EU, Africa, Asia) and the words of
// the category each stands for. A line is "category words | brands", the
// brands comma-separated; a brand marked * is an English word too
// ("Three", "Boots", "Octopus") and counts only written with a capital.
const brandTable = `
phone mobile network provider carrier contract plan tariff sim | vodafone, *EE, o2, *Three, giffgaff, tesco mobile, sky mobile, bt mobile, lebara, lycamobile, voxi, smarty, id mobile, eir, gomo, verizon, at&t, t-mobile, mint mobile, *Cricket, rogers, *Bell, telus, fido, koodo, freedom mobile, *Orange, movistar, telefonica, telekom, deutsche telekom, swisscom, kpn, proximus, wind tre, free mobile, sfr, bouygues, *Play, telia, telenor, tele2, mtn, safaricom, airtel, *Glo, vodacom, telkom, cell c, econet, jio, singtel, starhub, *Globe, dtac, telkomsel, indosat, docomo, softbank, kddi, sk telecom, china mobile, maxis, celcom, grameenphone, *Jazz, zong, ooredoo, etisalat, du mobile
energy gas electricity electric power supplier provider tariff utility utilities | *Octopus, british gas, edf, e.on, eon, ovo, scottish power, sse, *Bulb, shell energy, utility warehouse, so energy, electric ireland, bord gais, energia, airtricity, flogas, pinergy, con edison, pg&e, duke energy, hydro one, engie, vattenfall, enel, iberdrola, endesa, eskom, kplc, kenya power, tata power, adani electricity
broadband internet wifi provider connection fibre | virgin media, *BT, *Sky, plusnet, talktalk, hyperoptic, community fibre, vodafone, eir, comcast, xfinity, *Spectrum, *Cox, verizon fios, fios, rogers, *Shaw, telus, starlink, jio fiber, safaricom home
flight flights fly flying flies airline plane | ryanair, easyjet, jet2, british airways, aer lingus, wizz air, wizz, lufthansa, klm, air france, iberia, vueling, tui, emirates, qatar airways, etihad, *Delta, *United, american airlines, *Southwest, jetblue, air canada, westjet, ethiopian airlines, kenya airways, south african airways, indigo, air india, singapore airlines, cathay pacific, qantas, virgin atlantic, loganair, *Norwegian, finnair, turkish airlines, *Pegasus, transavia, eurowings, volotea, airasia, cebu pacific
train trains rail railway | trainline, lner, avanti, eurostar, amtrak, via rail, irish rail, northern rail, gwr, scotrail, deutsche bahn, sncf, trenitalia, renfe
bank banking account | monzo, starling, revolut, barclays, hsbc, lloyds, natwest, santander, *Halifax, *Nationwide, tsb, metro bank, first direct, *Chase, aib, bank of ireland, ptsb, wells fargo, bank of america, citibank, capital one, *TD, rbc, scotiabank, bmo, cibc, ing, n26, bunq, deutsche bank, bnp paribas, unicredit, caixabank, bbva, abn amro, rabobank, equity bank, kcb, absa, fnb, standard bank, capitec, gtbank, access bank, ecobank, hdfc, icici, sbi, dbs, ocbc, uob, maybank, bdo, m-pesa, mpesa, chime, ally bank
building society lender | *Nationwide, yorkshire building society, leeds building society, coventry building society, skipton building society
insurance insurer insurers policy cover | aviva, direct line, admiral, churchill insurance, axa, allianz, zurich, *LV, hastings direct, legal & general, vitality, bupa, geico, state farm, *Progressive, allstate, liberty mutual, desjardins, generali, mapfre, old mutual, sanlam, hollard, ping an, aia, prudential, fbd, irish life, laya, vhi, aig, churchill
supermarket supermarkets grocery groceries shopping food shop | tesco, sainsbury's, sainsburys, asda, morrisons, aldi, lidl, waitrose, ocado, *Iceland, m&s, dunnes, supervalu, centra, spar, walmart, kroger, costco, safeway, whole foods, trader joe's, publix, loblaws, sobeys, carrefour, auchan, leclerc, rewe, edeka, kaufland, mercadona, esselunga, albert heijn, shoprite, pick n pay, checkers, naivas, big bazaar, dmart, fairprice, coles, aeon
streaming subscription tv telly films movies shows series | netflix, disney+, disney plus, prime video, amazon prime, now tv, nowtv, apple tv, hulu, hbo max, paramount+, crave, britbox, itvx, iplayer, showmax, hotstar, crunchyroll
music streaming subscription | spotify, apple music, deezer, tidal, youtube music
pharmacy chemist chemists drugstore pharmacist | *Boots, superdrug, lloydspharmacy, lloyds pharmacy, well pharmacy, cvs, walgreens, rite aid, shoppers drug mart, rexall
optician opticians optometrist eye eyes glasses | specsavers, vision express, lenscrafters, boots opticians
car vehicle motor | skoda, *Ford, vauxhall, toyota, honda, nissan, kia, hyundai, vw, volkswagen, audi, bmw, mercedes, renault, peugeot, citroen, fiat, *Mini, tesla, volvo, mazda, suzuki, dacia, land rover, lexus, polestar, byd, chevrolet, subaru
taxi cab ride | uber, *Bolt, lyft, free now, grab, ola cabs, careem, didi
takeaway delivery food | deliveroo, just eat, uber eats, doordash, grubhub, skipthedishes, glovo, wolt, swiggy, zomato, foodpanda
post parcel courier delivery | royal mail, dpd, evri, hermes, yodel, dhl, fedex, ups, an post, canada post, usps
gym fitness membership | puregym, pure gym, the gym group, david lloyd, nuffield health, anytime fitness, planet fitness, f45, virgin active, gymbox
transfer money payment | western union, remitly, paypal, worldremit
`

type brandEntry struct {
	name string   // lower case, words space-separated
	cap  bool     // an English word too: counted only written with a capital
	cats []string // the category's words
}

var (
	brandOnce sync.Once
	brands    []brandEntry
)

func loadBrands() {
	for _, line := range strings.Split(brandTable, "\n") {
		cat, list, ok := strings.Cut(line, "|")
		if !ok {
			continue
		}
		cats := strings.Fields(cat)
		for _, b := range strings.Split(list, ",") {
			b = strings.TrimSpace(b)
			e := brandEntry{cats: cats}
			if strings.HasPrefix(b, "*") {
				e.cap, b = true, b[1:]
			}
			e.name = strings.Join(lowerWords(b), " ")
			if e.name != "" {
				brands = append(brands, e)
			}
		}
	}
}

// brandCategories are the category words of the brands texts name.
func brandCategories(texts []string) map[string]bool {
	brandOnce.Do(loadBrands)
	out := map[string]bool{}
	for _, t := range texts {
		lower := " " + strings.Join(lowerWords(t), " ") + " "
		var capd string // the text's words written with a capital
		for _, b := range brands {
			if !strings.Contains(lower, " "+b.name+" ") && !strings.Contains(lower, " "+b.name+"'s ") {
				continue
			}
			if b.cap {
				if capd == "" {
					capd = " " + strings.Join(capitalised(t), " ") + " "
				}
				if !strings.Contains(capd, " "+b.name+" ") {
					continue
				}
			}
			for _, c := range b.cats {
				out[c] = true
			}
		}
	}
	return out
}

// capitalised are text's words (lower case, "'s" trimmed) that are
// written with a capital.
func capitalised(text string) []string {
	var out []string
	for _, f := range strings.Fields(text) {
		if f[0] >= 'A' && f[0] <= 'Z' {
			for _, w := range lowerWords(f) {
				out = append(out, strings.TrimSuffix(w, "'s"))
			}
		}
	}
	return out
}
